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
  if (current && current.expiresAt <= Date.now()) signOut(current.token);
  return current;
}

export function signIn(session: Session): void {
  current = session;
  localStorage.setItem(KEY, JSON.stringify(session));
  emit();
}

/**
 * Signs out; with `token`, only that token's session: if another tab has meanwhile stored a newer one (its storage
 * event may not have reached this tab yet), that one is kept and adopted instead of erased for both tabs.
 */
export function signOut(token?: string): void {
  if (token !== undefined) {
    const stored = read();
    if (stored && stored.token !== token) {
      current = stored;
      emit();
      return;
    }
  }
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
