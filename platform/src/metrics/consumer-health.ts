/**
 * When a durable consumer counts as stuck, and how often its lag is sampled. Process-wide defaults, set
 * once at start from the environment (`startServiceMetrics`); a consumer's own options override them (tests).
 */
export interface ConsumerHealthSettings {
  /** How often each consumer reads its lag from the server (one consumer info, and one message get when behind). */
  lagSampleMs: number;
  /** Lag that has not shrunk while nothing was processed for this long makes the consumer stuck. */
  stuckAfterMs: number;
}

let defaults: ConsumerHealthSettings = { lagSampleMs: 10_000, stuckAfterMs: 120_000 };

export function setConsumerHealthDefaults(settings: ConsumerHealthSettings): void {
  defaults = { ...settings };
}

export function consumerHealthDefaults(): ConsumerHealthSettings {
  return defaults;
}

/**
 * Progress of one consumer: a message finished by this instance, a lag sample smaller than the one before
 * (another instance of the service is working the same durable), or no lag at all. Stuck = lag waiting and
 * no progress for `stuckAfterMs`: a held handler, a dead database connection, a pull that never comes back.
 */
export class ProgressWatch {
  private lastProgressAt: number;
  private lag = 0;

  constructor(
    private readonly stuckAfterMs: number,
    now: number,
  ) {
    this.lastProgressAt = now;
  }

  processed(now: number): void {
    this.lastProgressAt = now;
  }

  /** `lag`: messages waiting that this consumer could process (parked events not understood left out). */
  sampled(lag: number, now: number): void {
    if (lag === 0 || lag < this.lag) this.lastProgressAt = now;
    this.lag = lag;
  }

  /** Milliseconds without progress while lag waits, once that reaches `stuckAfterMs`; otherwise undefined. */
  stuckForMs(now: number): number | undefined {
    const idle = now - this.lastProgressAt;
    return this.lag > 0 && idle >= this.stuckAfterMs ? idle : undefined;
  }
}
