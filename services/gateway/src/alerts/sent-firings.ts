/** What to do with a live firing on a notification stream. */
export type LiveVerdict = 'send' | 'sent' | 'late';

/**
 * Which firings one notification stream has sent, so none goes out twice on it. Two ways send: the alerts inbox
 * read (the replay after `Last-Event-ID`, the backstop) and the live NotificationFired. `after` is the cursor the
 * inbox confirmed: every firing of the user up to it was read (and sent, or was older than the stream). `pushed`
 * holds the ids above it sent live; the next inbox read skips them and moves the cursor past them.
 *
 * A user's firing ids become visible in order (the alerts feed locks), so live firings normally come in id order
 * and each is newer than everything sent. One ordering case is accepted: a firing whose live event was lost, or
 * came after a newer one's (two publications racing), is sent by the next inbox read, after newer firings already
 * pushed. It is never dropped, and never sent twice.
 */
export class SentFirings {
  private readonly pushed = new Set<number>();
  /** The highest id sent (or the cursor). */
  private top: number;

  constructor(private cursor: number) {
    this.top = cursor;
  }

  /** The last id the inbox confirmed: the next inbox read starts after it. */
  get after(): number {
    return this.cursor;
  }

  /**
   * A live firing: `send` it (newer than all sent; noted as sent), it was `sent` already (or precedes the stream),
   * or it is `late`: older than one sent and not sent itself, so only an inbox read sends it, in its order there.
   */
  live(id: number): LiveVerdict {
    if (id <= this.cursor || this.pushed.has(id)) return 'sent';
    if (id < this.top) return 'late';
    this.pushed.add(id);
    this.top = id;
    return 'send';
  }

  /** A row of the inbox read after `after`, in id order: whether to send it (not pushed already). Moves the cursor. */
  confirmed(id: number): boolean {
    if (id <= this.cursor) return false;
    this.cursor = id;
    if (id > this.top) this.top = id;
    return !this.pushed.delete(id);
  }

  /** The inbox read reached its end: ids pushed at or below the cursor (a firing deleted since) are forgotten. */
  caughtUp(): void {
    for (const id of this.pushed) if (id <= this.cursor) this.pushed.delete(id);
  }
}
