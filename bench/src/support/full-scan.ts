/**
 * The alerts benchmark's baseline, the spec's polling: every active notification read and evaluated in memory
 * against the latest rates, in a process of its own (`startFullScanner`). In the measured process its million
 * rows cost the next event what the service never pays: the collections they caused dropped the event path's
 * optimised code (V8 deoptimises code whose embedded objects died), recompiled in the measured window on the
 * same two cores.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { collectGarbage } from './gc.js';
import type { RateChange } from '@invest/contracts';
import { NOTIFICATION_COLUMNS, type NotificationRow, toState } from '@invest/alerts/evaluation/alerts-evaluator';
import type { EvaluationContext, RateView } from '@invest/alerts/evaluation/evaluation.types';
import { firingOf } from '@invest/alerts/evaluation/notification.decider';

type Query = <R>(sql: string) => Promise<R[]>;

/** What one full scan found, and what it cost. */
export interface FullScanResult {
  fired: Set<number>;
  readMs: number;
  evalMs: number;
  evaluated: number;
  heapBytes: number;
}

/** Every active notification read and evaluated in memory against the latest rates (with `batch` applied). */
export async function fullScan(query: Query, batch: readonly RateChange[], ctx: EvaluationContext, observedAt: Date): Promise<FullScanResult> {
  // The previous scan's rows collected first, so the figure is this scan's.
  collectGarbage();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const rows = await query<NotificationRow>(`select ${NOTIFICATION_COLUMNS} from notifications n where n.is_active`);
  const members = await query<{ target_id: string; asset_id: string }>("select target_id::text, asset_id::text from memberships where target_type = 'portfolio'");
  const readMs = performance.now() - t0;
  // The rows in memory at once (what polling holds), read before they are evaluated.
  const heapBytes = process.memoryUsage().heapUsed - heap0;
  const t1 = performance.now();
  const rates = new Map<number, RateView>();
  for (const r of batch) rates.set(r.assetId, { assetType: r.assetType, assetId: r.assetId, ticker: r.ticker, rate: r.rate, change24h: r.priceChangePercentage24h, asOf: new Date(r.asOf), observedAt });
  const byGroup = new Map<number, RateView[]>();
  for (const m of members) {
    const list = byGroup.get(Number(m.target_id)) ?? [];
    const rate = rates.get(Number(m.asset_id));
    if (rate) list.push(rate);
    byGroup.set(Number(m.target_id), list);
  }
  const fired = new Set<number>();
  for (const row of rows) {
    const n = toState(row);
    const own = n.targetType === 'asset' ? rates.get(n.targetId) : undefined;
    if (firingOf(n, own ? [own] : (byGroup.get(n.targetId) ?? []), ctx)) fired.add(n.id);
  }
  const evalMs = performance.now() - t1;
  return { fired, readMs, evalMs, evaluated: rows.length, heapBytes };
}

interface ScanCommand {
  batch: readonly RateChange[];
  now: string;
  maxRateAgeMs: number;
  marketTz: string;
  observedAt: string;
}
type ScanReply = Omit<FullScanResult, 'fired'> & { fired: number[] };

/** The full scan as the benchmark sees it: run in the scanner process, on the database it was started with. */
export interface FullScanner {
  scan(batch: readonly RateChange[], ctx: EvaluationContext, observedAt: Date): Promise<FullScanResult>;
  close(): void;
  /** The scanner process's pid (its CPU is counted in the measured window too). */
  pid: number;
}

/** Starts the scanner process on the database at `databaseUrl`. */
export function startFullScanner(databaseUrl: string): FullScanner {
  // Without the measured process's Node and V8 flags (`--trace-opt`, `--cpu-prof`, …): those are for it alone.
  const child = fork(fileURLToPath(import.meta.url), [databaseUrl], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies: ((reply: ScanReply | { error: string }) => void)[] = [];
  child.on('message', (reply: ScanReply | { error: string }) => replies.shift()?.(reply));
  return {
    scan: (batch, ctx, observedAt) =>
      new Promise((resolve, reject) => {
        replies.push((reply) => ('error' in reply ? reject(new Error(`full scan: ${reply.error}`)) : resolve({ ...reply, fired: new Set(reply.fired) })));
        const command: ScanCommand = { batch, now: ctx.now.toISOString(), maxRateAgeMs: ctx.maxRateAgeMs, marketTz: ctx.marketTz, observedAt: observedAt.toISOString() };
        child.send(command, (err) => err && reject(err));
      }),
    close: () => void child.kill(),
    pid: child.pid!,
  };
}

async function serve(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-full-scan' });
  await client.connect();
  const query: Query = async <R>(sql: string) => (await client.query(sql)).rows as R[];
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (command: ScanCommand) => {
    try {
      const ctx: EvaluationContext = { now: new Date(command.now), maxRateAgeMs: command.maxRateAgeMs, marketTz: command.marketTz };
      const result = await fullScan(query, command.batch, ctx, new Date(command.observedAt));
      process.send!({ ...result, fired: [...result.fired] } satisfies ScanReply);
    } catch (err) {
      process.send!({ error: String((err as Error)?.stack ?? err) });
    }
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) void serve(process.argv[2]!);
