import { useSyncExternalStore } from 'react';
import { useMediaQuery } from './components/use-media-query';

/** `system` follows the device's light/dark setting (prefers-color-scheme); the others override it. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'invest.theme';
const listeners = new Set<() => void>();

function initial(): ThemeChoice {
  const saved = localStorage.getItem(KEY);
  return saved === 'light' || saved === 'dark' ? saved : 'system';
}
let theme: ThemeChoice = initial();
apply();

/**
 * `<html data-theme="light|dark">` sets `color-scheme` in styles.css, which picks each colour's light or dark value
 * (and the browser's own parts: scrollbars, date pickers); without it the device's setting does.
 */
function apply(): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function setTheme(next: ThemeChoice): void {
  theme = next;
  localStorage.setItem(KEY, next);
  apply();
  for (const l of listeners) l();
}

/** The choice after `current` in the switch's cycle: system → light → dark → system. */
export function nextTheme(current: ThemeChoice): ThemeChoice {
  return current === 'system' ? 'light' : current === 'light' ? 'dark' : 'system';
}

export function useTheme(): ThemeChoice {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => theme,
  );
}

/** Whether the page is dark now: chosen, or the device's setting under `system` (for what CSS does not paint, e.g. charts). */
export function useDarkTheme(): boolean {
  const theme = useTheme();
  const systemDark = useMediaQuery('(prefers-color-scheme: dark)');
  return theme === 'dark' || (theme === 'system' && systemDark);
}
