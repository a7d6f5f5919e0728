import type { AssetType } from '@invest/contracts';
import type { Db, Job, JobSummary } from '@invest/platform';
import { refreshCustomAssetChanges } from '../custom-assets/custom-assets.service.js';
import { COINGECKO_PAGE } from '../market-data/coingecko.client.js';
import { parseCoinMarkets } from '../market-data/coingecko.parser.js';
import { MOEX_MARKETS, type MoexMarketKind, type MoexMarketSpec, parseIssMarket } from '../market-data/iss-market.parser.js';
import { marketToday } from '../market-data/market-time.js';
import { moexRateInputs } from '../rates/moex-rates.source.js';
import { type RateBatch, type RateInput, writeRateBatch } from '../rates/rate-writer.js';
import { tokenRateInputs } from '../rates/token-rates.source.js';
import type { ScreenerJobDeps } from './job-deps.js';
import { RunReport } from './run-report.js';
import { WATCHLIST_SOURCE } from '../used-assets/used-assets.consumer.js';

export const ASSET_RATES_JOB = 'get:assetRates';
export const ONLY_USED_ASSETS = '--only_used_assets';

/** SECIDs per request when asking ISS for some securities of a board (keeps URLs short). */
const SECIDS_PER_REQUEST = 100;

const KIND_OF_TYPE: Partial<Record<AssetType, MoexMarketKind>> = {
  share: 'shares',
  etf: 'etfs',
  bond: 'bonds',
  future: 'futures',
  currency: 'currencies',
};

interface MoexTarget {
  spec: MoexMarketSpec;
  board: string | null;
  /** Only these SECIDs (used assets); all of the board otherwise. */
  secids?: string[];
}

interface Targets {
  moex: MoexTarget[];
  tokens: string[];
  /** Custom assets to move on; undefined means all. */
  customAssetIds?: number[];
}

export async function loadShareCategories(db: Db): Promise<Map<string, number>> {
  const rows = await db.query<{ id: number; moex_sec_type: string }>('select id, moex_sec_type from share_categories where moex_sec_type is not null');
  return new Map(rows.map((r) => [r.moex_sec_type, r.id]));
}

function parseArgs(args: readonly string[]): { onlyUsed: boolean } {
  const unknown = args.filter((a) => a !== ONLY_USED_ASSETS);
  if (unknown.length) throw new Error(`${ASSET_RATES_JOB}: unknown option(s) ${unknown.join(' ')} (usage: ${ASSET_RATES_JOB} [${ONLY_USED_ASSETS}])`);
  return { onlyUsed: args.includes(ONLY_USED_ASSETS) };
}

async function allTargets(deps: ScreenerJobDeps): Promise<Targets> {
  const moex = Object.values(MOEX_MARKETS).flatMap((spec): MoexTarget[] => (spec.boards ? spec.boards.map((board) => ({ spec, board })) : [{ spec, board: null }]));
  const known = await deps.db.query<{ source_id: string }>(`select source_id from assets where type = 'token' order by id`);
  return { moex, tokens: [...new Set([...deps.mainCoins, ...known.map((k) => k.source_id)])] };
}

/**
 * Assets with an open position in some portfolio (or, later, an active alert), grouped by where their rate comes
 * from. Watchlist items are in `used_assets` too (a custom asset in use cannot be deleted) but are not refreshed
 * every minute: the spec names open deals.
 */
async function usedTargets(db: Db): Promise<Targets> {
  const rows = await db.query<{ id: string; type: AssetType; ticker: string; board: string | null; source_id: string | null }>(
    `select a.id::text, a.type, a.ticker, a.board, a.source_id from assets a
     where exists (select 1 from used_assets u where u.asset_id = a.id and u.source <> $1) order by a.id`,
    [WATCHLIST_SOURCE],
  );
  const groups = new Map<string, MoexTarget>();
  const tokens: string[] = [];
  const customAssetIds: number[] = [];
  for (const r of rows) {
    if (r.type === 'token' && r.source_id) tokens.push(r.source_id);
    else if (r.type === 'custom_asset') customAssetIds.push(Number(r.id));
    else {
      const kind = KIND_OF_TYPE[r.type];
      if (!kind) continue;
      const spec = MOEX_MARKETS[kind];
      const board = spec.boards ? (r.board && spec.boards.includes(r.board) ? r.board : spec.boards[0]!) : null;
      const key = `${kind}|${board ?? ''}`;
      const target = groups.get(key) ?? { spec, board, secids: [] };
      target.secids!.push(r.ticker);
      groups.set(key, target);
    }
  }
  // Requests in the order of the full refresh, then chunked so URLs stay short.
  const order = Object.keys(MOEX_MARKETS);
  const moex = [...groups.values()]
    .sort((a, b) => order.indexOf(a.spec.kind) - order.indexOf(b.spec.kind))
    .flatMap((t) => chunk(t.secids!, SECIDS_PER_REQUEST).map((secids) => ({ ...t, secids })));
  return { moex, tokens, customAssetIds };
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `get:assetRates [--only_used_assets]`: rates of every asset type from its provider (MOEX ISS boards for
 * shares, ETFs, bonds, futures, currencies; CoinGecko for tokens; the owner's price for custom assets, whose
 * day change moves on). The full run (every 15 minutes) also creates assets new on a board; the used-assets
 * run (every minute) refreshes only assets with open positions. Each provider response is one batch: one
 * transaction, one RatesUpdated with what changed. A failing response, or a batch the database refuses, is
 * skipped with its reason and its assets keep their last values; the run fails only when no source answered.
 */
export function createAssetRatesJob(deps: ScreenerJobDeps): Job {
  return {
    name: ASSET_RATES_JOB,
    async run(args: string[]): Promise<JobSummary> {
      const { onlyUsed } = parseArgs(args);
      const source = onlyUsed ? `${ASSET_RATES_JOB} ${ONLY_USED_ASSETS}` : ASSET_RATES_JOB;
      const report = new RunReport();
      const targets = onlyUsed ? await usedTargets(deps.db) : await allTargets(deps);
      const categories = await loadShareCategories(deps.db);
      const taken = new Set<string>();
      for (const target of targets.moex) await moexBatch(deps, report, target, { categories, insertMissing: !onlyUsed, source, taken });
      for (const ids of chunk(targets.tokens, COINGECKO_PAGE)) await tokenBatch(deps, report, ids, { insertMissing: !onlyUsed, source });
      if (!onlyUsed || targets.customAssetIds?.length) {
        const custom = await refreshCustomAssetChanges(deps.db, {
          today: marketToday(deps.marketTz),
          source,
          ...(targets.customAssetIds ? { assetIds: targets.customAssetIds } : {}),
        });
        report.fetched += custom.fetched;
        report.changed += custom.changed.length;
      }
      return report.finish(ASSET_RATES_JOB, { onlyUsedAssets: onlyUsed });
    },
  };
}

export async function moexBatch(
  deps: ScreenerJobDeps,
  report: RunReport,
  target: MoexTarget,
  opts: { categories: ReadonlyMap<string, number>; insertMissing: boolean; source: string; taken?: Set<string> },
): Promise<void> {
  const { spec, board, secids } = target;
  const label = `${spec.kind} ${board ?? spec.market}`;
  report.attempt();
  let items: RateInput[];
  let fetchedAt: Date;
  try {
    const doc = await deps.moex.market(spec, board, secids, deps.signal);
    fetchedAt = new Date();
    const parsed = parseIssMarket(doc, spec, board ? { board } : {});
    const mapped = moexRateInputs(spec, parsed.quotes, opts.categories, fetchedAt);
    report.fetched += parsed.quotes.length + parsed.skipped.length;
    report.rowsSkipped(label, [...parsed.skipped, ...mapped.skipped]);
    if (secids) {
      // ISS silently drops SECIDs it does not know: say which ones did not come back.
      const answered = new Set([...parsed.quotes.map((q) => q.secid), ...parsed.skipped.map((s) => s.secid)]);
      report.rowsSkipped(label, secids.filter((s) => !answered.has(s)).map((secid) => ({ secid, reason: 'not in the provider answer' })));
    }
    // A security on two boards of the same market is taken from the first board read (the board order).
    items = mapped.items.filter((i) => {
      const key = `${spec.assetType}|${i.key}`;
      if (opts.taken?.has(key)) return false;
      opts.taken?.add(key);
      return true;
    });
  } catch (err) {
    const reason = report.blockFailed(label, err, secids?.length ?? 1);
    deps.logger.warn({ job: opts.source, market: spec.kind, board, reason }, `${label}: provider block skipped; last values kept`);
    return;
  }
  await writeBatch(deps, report, label, { assetType: spec.assetType, source: opts.source, items, insertMissing: opts.insertMissing }, fetchedAt);
}

/**
 * Writes one response's batch. A batch the database refuses (a value the parser let through that a column
 * cannot hold) is rolled back whole and skipped with its reason, like a response that failed: its assets keep
 * their last values and the run goes on with the other boards, CoinGecko and the custom assets.
 */
async function writeBatch(deps: ScreenerJobDeps, report: RunReport, label: string, batch: RateBatch, fetchedAt: Date): Promise<void> {
  try {
    const result = await writeRateBatch(deps.db, batch, { marketTz: deps.marketTz, logger: deps.logger, now: fetchedAt });
    report.changed += result.changed.length;
    report.rowsSkipped(label, result.skipped);
  } catch (err) {
    const reason = report.blockFailed(label, err, batch.items.length);
    deps.logger.error({ job: batch.source, assetType: batch.assetType, reason, err }, `${label}: storing failed; batch skipped, last values kept`);
  }
}

export async function tokenBatch(deps: ScreenerJobDeps, report: RunReport, ids: readonly string[], opts: { insertMissing: boolean; source: string }): Promise<void> {
  const label = 'tokens coingecko';
  report.attempt();
  let items: RateInput[];
  let fetchedAt: Date;
  try {
    const doc = await deps.coingecko.markets(ids, deps.signal);
    fetchedAt = new Date();
    const parsed = parseCoinMarkets(doc);
    report.fetched += parsed.quotes.length + parsed.skipped.length;
    report.rowsSkipped(label, parsed.skipped);
    const answered = new Set([...parsed.quotes.map((q) => q.id), ...parsed.skipped.map((s) => s.id)]);
    report.rowsSkipped(label, ids.filter((id) => !answered.has(id)).map((key) => ({ key, reason: 'not in the provider answer' })));
    // Only the coins asked for: a provider answering more must not create tokens nobody chose (nor refresh
    // them outside the set this run is responsible for).
    const asked = new Set(ids);
    report.rowsSkipped(label, parsed.quotes.filter((q) => !asked.has(q.id)).map((q) => ({ key: q.id, reason: 'not asked for' })));
    items = tokenRateInputs(parsed.quotes.filter((q) => asked.has(q.id)), fetchedAt);
  } catch (err) {
    const reason = report.blockFailed(label, err, ids.length);
    deps.logger.warn({ job: opts.source, provider: 'coingecko', reason }, `${label}: provider block skipped; last values kept`);
    return;
  }
  await writeBatch(deps, report, label, { assetType: 'token', source: opts.source, items, insertMissing: opts.insertMissing }, fetchedAt);
}
