import type { Job, JobSummary } from '@invest/platform';
import type { CustomAssetsService } from './custom-assets.service.js';

export const FINISH_DELETIONS_JOB = 'custom-assets:finish-deletions';

/**
 * How long a hidden custom asset is left to the deletion that hid it: that request asks portfolios once (an
 * RPC bounded by its timeout, seconds), so a mark this old was left by a process that stopped.
 */
export const PENDING_DELETION_GRACE_MS = 60_000;

/** `custom-assets:finish-deletions`: every minute, completes the custom asset deletions a stopped process left half way. */
export function createFinishDeletionsJob(customAssets: CustomAssetsService, now: () => Date = () => new Date()): Job {
  return {
    name: FINISH_DELETIONS_JOB,
    async run(args: string[]): Promise<JobSummary> {
      if (args.length) throw new Error(`${FINISH_DELETIONS_JOB}: takes no options (got ${args.join(' ')})`);
      const r = await customAssets.finishPendingDeletions(new Date(now().getTime() - PENDING_DELETION_GRACE_MS));
      return {
        fetched: r.pending,
        changed: r.deleted + r.restored,
        skipped: r.unanswered,
        notes: r.pending > 0 ? [`${r.deleted} deleted, ${r.restored} in use and shown again, ${r.unanswered} left hidden (portfolios did not answer)`] : [],
      };
    },
  };
}
