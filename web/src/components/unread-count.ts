import { useSyncExternalStore } from 'react';
import { api } from '../api/client';

/**
 * The signed-in user's unread count for the navigation: read from the inbox (`meta.unread_count` of
 * GET /api/notification-events) when the stream connects and again shortly after live firings, and set from the
 * answer of a mark-read. The server's count is the truth: a firing delivered twice (a replay) or one the read
 * already counted cannot count twice. Null while unknown (signed out, not read yet).
 */
let count: number | null = null;
// Every change takes a number; an answer that left before a later change is dropped (a mark-read beats a read in flight).
let generation = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

function set(next: number | null) {
  if (next === count) return;
  count = next;
  for (const l of listeners) l();
}

/** Reads the count now. */
export function refreshUnreadCount(): Promise<void> {
  const mine = ++generation;
  return api.get('/api/notification-events', { query: { per_page: '1' } }).then(
    (page) => {
      if (mine === generation) set((page.meta as { unread_count?: number }).unread_count ?? 0);
    },
    () => undefined,
  );
}

/** Reads the count a moment from now: the firings of one rate batch arrive together and need one read. */
export function refreshUnreadCountSoon(delayMs = 150): void {
  clearTimeout(timer);
  timer = setTimeout(() => void refreshUnreadCount(), delayMs);
}

/** The count an answer gave (mark-read). */
export function setUnreadCount(n: number): void {
  generation++;
  set(n);
}

/** Signed out: nothing to show. */
export function resetUnreadCount(): void {
  generation++;
  clearTimeout(timer);
  set(null);
}

export function useUnreadCount(): number | null {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => count,
  );
}
