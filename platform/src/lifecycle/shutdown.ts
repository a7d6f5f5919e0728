import type { Logger } from '../logging/logger.js';

/**
 * Ends the process cleanly on SIGINT/SIGTERM: calls `close()` once, exits 0 when it finishes, 1 when it
 * fails or takes longer than `timeoutMs`. The handlers stay installed (`on`, not `once`): Nest's shutdown
 * hooks re-raise the signal after closing the app, and that second signal must not kill the process
 * before `close()` has finished.
 */
export function exitOnSignals(opts: { name: string; logger: Logger; close: () => Promise<unknown>; timeoutMs?: number }): void {
  const { name, logger, close } = opts;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.debug({ signal }, `${name} stopping`);
    setTimeout(() => {
      logger.error(`${name} did not stop within ${timeoutMs / 1000} s; exiting`);
      process.exit(1);
    }, timeoutMs).unref();
    close().then(
      () => {
        logger.debug(`${name} stopped`);
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, `${name} failed to stop cleanly`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * Resources a service started, stopped once in reverse order by whichever comes first: close(), a
 * signal (through Nest's shutdown hooks) or a failed start. A step that fails is logged and the rest
 * still run.
 */
export class ShutdownStack {
  private readonly steps: (() => Promise<unknown> | unknown)[] = [];
  private stopped: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** Registers what undoes the step just taken. */
  push(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }

  /** Runs every step, last first; later calls return the same promise. */
  stop(): Promise<void> {
    return (this.stopped ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step();
        } catch (err) {
          this.logger.warn({ err }, 'error while stopping');
        }
      }
    })());
  }
}
