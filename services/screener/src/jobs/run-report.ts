import { ProviderError } from '@invest/platform/http/fetch-json';
import type { JobSummary } from '@invest/platform/jobs/job-runner';
import { CoinGeckoFormatError } from '../market-data/coingecko.parser.js';
import { MoexIssFormatError } from '../market-data/moex-iss.parser.js';

const MAX_NOTES = 20;

/** Why a provider block failed, in one phrase for the summary and the log. */
export function failureReason(err: unknown): string {
  if (err instanceof ProviderError) return err.message;
  if (err instanceof MoexIssFormatError || err instanceof CoinGeckoFormatError) return `unexpected format: ${err.message}`;
  if (err instanceof Error && err.name === 'AbortError') return 'stopped';
  return err instanceof Error ? err.message : String(err);
}

/**
 * Collects what a job run did: items fetched, changed, skipped (rows and whole blocks, with reasons). A
 * failed block keeps its last stored values; the run fails only when every source it tried failed.
 */
export class RunReport {
  fetched = 0;
  changed = 0;
  skipped = 0;
  readonly notes: string[] = [];
  private attempts = 0;
  private failures = 0;
  private hiddenNotes = 0;

  note(text: string): void {
    if (this.notes.length < MAX_NOTES) this.notes.push(text);
    else this.hiddenNotes++;
  }

  attempt(): void {
    this.attempts++;
  }

  /** A whole block (one provider request) could not be used: nothing of it was written. */
  blockFailed(label: string, err: unknown, count = 1): string {
    this.failures++;
    this.skipped += count;
    const reason = failureReason(err);
    this.note(`${label}: skipped, ${reason}; last values kept`);
    return reason;
  }

  /** Rows of a block that could not be used, summarised by reason. */
  rowsSkipped(label: string, skips: readonly { secid?: string; key?: string; reason: string }[]): void {
    if (!skips.length) return;
    this.skipped += skips.length;
    const byReason = new Map<string, string[]>();
    for (const s of skips) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s.secid ?? s.key ?? '?']);
    for (const [reason, keys] of byReason) {
      this.note(`${label}: ${keys.length} skipped (${reason}): ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}`);
    }
  }

  /** True when at least one source was tried and none answered usably. */
  get allFailed(): boolean {
    return this.attempts > 0 && this.failures >= this.attempts;
  }

  summary(extra: Record<string, unknown> = {}): JobSummary {
    const notes = this.hiddenNotes ? [...this.notes, `… and ${this.hiddenNotes} more`] : [...this.notes];
    return { fetched: this.fetched, changed: this.changed, skipped: this.skipped, ...(notes.length ? { notes } : {}), ...extra };
  }

  /** Throws (the run fails, the CLI exits non-zero) when every source failed; otherwise the summary. */
  finish(job: string, extra: Record<string, unknown> = {}): JobSummary {
    if (this.allFailed) throw new Error(`${job}: no source answered usably (${this.notes.join(' | ')})`);
    return this.summary(extra);
  }
}
