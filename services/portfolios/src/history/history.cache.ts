import type { ValueHistory } from './value-history.js';

interface Entry {
  statsVersion: number;
  through: string;
  expiresAt: number;
  history: ValueHistory;
}

/**
 * Computed value histories, in memory, by portfolio. An entry is used only at the portfolio's current
 * `stats_version` (every deal change bumps it, as for the statistics caches) and for the same last day: closes
 * change once a market day, when the day rolls over, and the last day is revalued at live prices on every read.
 * A TTL bounds what a late or corrected close can leave stale; an answer still waiting for a backfill is never kept.
 */
export class HistoryCache {
  private readonly entries = new Map<number, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  get(portfolioId: number, statsVersion: number, through: string): ValueHistory | undefined {
    const e = this.entries.get(portfolioId);
    if (!e) return undefined;
    if (e.statsVersion !== statsVersion || e.through !== through || e.expiresAt <= this.now()) {
      if (e.statsVersion < statsVersion || e.expiresAt <= this.now()) this.entries.delete(portfolioId);
      return undefined;
    }
    return e.history;
  }

  set(portfolioId: number, statsVersion: number, through: string, history: ValueHistory): void {
    // An older version computed by a slow reader never replaces a newer one.
    const held = this.entries.get(portfolioId);
    if (held && held.statsVersion > statsVersion) return;
    this.entries.delete(portfolioId);
    this.entries.set(portfolioId, { statsVersion, through, expiresAt: this.now() + this.ttlMs, history });
    // Oldest insertion first: drop beyond the bound.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
