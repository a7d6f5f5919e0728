import { vi } from 'vitest';

/**
 * For unit tests of modules that touch the browser at import (window, localStorage, document): stubs them, with
 * localStorage kept in `store` (a new map unless given), which it returns. Call it before importing those modules
 * (dynamically), and again with the same map after `vi.unstubAllGlobals()`.
 */
export function stubBrowserGlobals(store = new Map<string, string>()): Map<string, string> {
  vi.stubGlobal('window', { addEventListener: () => undefined });
  vi.stubGlobal('localStorage', {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  });
  vi.stubGlobal('document', { documentElement: { lang: '', setAttribute: () => undefined } });
  return store;
}
