import type { OutgoingMessage } from '../channels/channel.js';

/** What the service worker (`web/public/sw.js`) reads from a push: it shows `title` and `body` and opens `url` on a click. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  /** A notification with the same tag replaces the earlier one: a message sent twice shows once. */
  tag: string;
}

/**
 * Most bytes of JSON a payload may take. One aes128gcm record of 4096 bytes carries 3993 bytes of plaintext
 * (RFC 8291 §4); push services must accept that much (RFC 8030 §7.2). The margin keeps clear of services that count
 * their own framing.
 */
export const MAX_PAYLOAD_BYTES = 3800;

const bytes = (p: PushPayload) => Buffer.byteLength(JSON.stringify(p));

/**
 * The push payload of a message: its title, its lines as the body, its link, and a tag from its first firing.
 * Lines that do not fit are left off from the end, ending the body in "…"; the title and the link always fit.
 */
export function pushPayload(message: OutgoingMessage): PushPayload {
  const first = message.firings[0];
  const tag = first ? `firing-${first.firingId}` : `message-${message.userId}`;
  const base: PushPayload = { title: cut(message.title, 200), body: '', url: message.url, tag };
  const lines = [...message.lines];
  let payload: PushPayload = { ...base, body: lines.join('\n') };
  if (bytes(payload) <= MAX_PAYLOAD_BYTES) return payload;
  while (lines.length > 1) {
    lines.pop();
    payload = { ...base, body: `${lines.join('\n')}\n…` };
    if (bytes(payload) <= MAX_PAYLOAD_BYTES) return payload;
  }
  // One line too long on its own: cut it to the room left.
  const room = MAX_PAYLOAD_BYTES - bytes(base);
  return { ...base, body: cut(lines[0] ?? '', Math.max(0, Math.floor(room / 6))) };
}

/** At most `max` characters (whole code points), ending in "…" when cut. */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}
