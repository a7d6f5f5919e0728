import { RequestOutcome } from '@invest/contracts';
import { ServiceError } from '../rpc/service-error.js';
import { currentContext } from './request-context.js';

/**
 * How long before the caller's deadline a service stops starting and committing work. The deadline is an
 * absolute time on the caller's clock (a relative budget would restart when a paused process resumes and
 * reads a request that waited in its socket), so the margin covers the clock skew between hosts (NTP keeps it
 * to milliseconds), the COMMIT itself and the reply's trip back. Work that commits inside the margin may
 * still answer too late: the caller then reports the outcome as unknown.
 */
export const DEADLINE_MARGIN_MS = 250;

/** True when a request deadline is set (argument, else the current request context's) and has passed, margin included. */
export function deadlinePassed(deadline: number | undefined = currentContext()?.deadline, now = Date.now()): boolean {
  return deadline !== undefined && now >= deadline - DEADLINE_MARGIN_MS;
}

/**
 * Throws an `unavailable` ServiceError (outcome `not_done`) when the current request's deadline has passed:
 * nobody waits for the answer, so the work must not start or commit. `stage` says which, for the message.
 * A no-op outside a request with a deadline (consumers, jobs).
 */
export function assertBeforeDeadline(stage: 'start' | 'commit'): void {
  if (!deadlinePassed()) return;
  throw ServiceError.unavailable(
    stage === 'start' ? 'The request reached the service after its deadline; it was not started.' : 'The request ran past its deadline; its changes were rolled back.',
    RequestOutcome.NotDone,
  );
}
