import { useSyncExternalStore } from 'react';

/** The signed-in user: a bearer token (development form, or the identity provider in production). */
export interface Session {
  token: string;
  userId: string;
  /** When the token stops being accepted (ms since epoch). */
  expiresAt: number;
}

const KEY = 'invest.session';
const listeners = new Set<() => void>();
let current: Session | null = read();

function read(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && typeof s.token === 'string' && s.expiresAt > Date.now() ? s : null;
  } catch {
    return null;
  }
}

function emit() {
  for (const l of listeners) l();
}

// Another tab signing in or out changes this one too.
window.addEventListener('storage', (e) => {
  if (e.key !== KEY) return;
  current = read();
  emit();
});

export function getSession(): Session | null {
  if (current && current.expiresAt <= Date.now()) signOut();
  return current;
}

export function signIn(session: Session): void {
  current = session;
  localStorage.setItem(KEY, JSON.stringify(session));
  emit();
}

export function signOut(): void {
  current = null;
  localStorage.removeItem(KEY);
  emit();
}

export function useSession(): Session | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
