import type { Answer } from '../api/client';

/** One fired notification as the inbox and the live stream give it. */
export type Firing = Answer<'/api/notification-events', 'get'>['data'][number];

const listeners = new Set<(f: Firing) => void>();

/** The inbox screen listens while open; the stream publishes each live firing. */
export function onFiring(listener: (f: Firing) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function publishFiring(f: Firing): void {
  for (const l of listeners) l(f);
}
