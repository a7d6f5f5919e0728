import { ErrorCode } from '@invest/contracts';
import { ServiceError } from '@invest/platform';

/**
 * The live streams each user holds on this gateway instance, of one kind (notification streams, answer streams):
 * each holds a connection and its readers, so a user gets a few at once, not any number.
 */
export class StreamsPerUser {
  private readonly open = new Map<string, number>();

  /** @param what the streams, as the 429 names them (`live notification streams`). */
  constructor(private readonly what: string) {}

  /**
   * Counts one stream of `userId` until the returned release is called (once; later calls do nothing). With a
   * `limit`, a stream beyond it is a 429 naming the limit, and nothing is counted.
   */
  hold(userId: string, limit?: number): () => void {
    const open = this.open.get(userId) ?? 0;
    if (limit !== undefined && open >= limit) {
      throw new ServiceError(ErrorCode.RateLimited, `At most ${limit} ${this.what} per user at once; close one (another tab or device) first.`, undefined, { limit });
    }
    this.open.set(userId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left > 0) this.open.set(userId, left);
      else this.open.delete(userId);
    };
  }
}
