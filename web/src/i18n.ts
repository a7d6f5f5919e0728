import { useSyncExternalStore } from 'react';
import type { Locale } from './format/number-format';

const KEY = 'invest.locale';
const listeners = new Set<() => void>();

function initial(): Locale {
  const saved = localStorage.getItem(KEY);
  if (saved === 'ru' || saved === 'en') return saved;
  return navigator.language?.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}
let locale: Locale = initial();
document.documentElement.lang = locale;

export function getLocale(): Locale {
  return locale;
}

export function setLocale(next: Locale): void {
  locale = next;
  localStorage.setItem(KEY, next);
  document.documentElement.lang = next;
  for (const l of listeners) l();
}

export function useLocale(): Locale {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => locale,
  );
}
