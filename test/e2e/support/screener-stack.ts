/**
 * The screener behind the gateway for tests: the real screener (demo data) on a fresh database, the gateway in
 * front of it on a free port, one unique bus prefix, and a direct SQL client on the screener's database.
 */
import type { ShareRow } from '@invest/contracts';
import { createLogger, type Logger } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createScreenerApp, type ScreenerApp } from '@invest/screener/screener.app';
import pg from 'pg';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';

/** A page of `GET /api/public/shares` (and `/api/shares`). */
export interface PageBody {
  data: ShareRow[];
  meta: { current_page: number; per_page: number; total: number; last_page: number; from: number | null; to: number | null };
  links: { first: string; last: string; prev: string | null; next: string | null };
}

export interface ScreenerStack {
  screener: ScreenerApp;
  gw: GatewayApp;
  base: string;
  busPrefix: string;
  /** On the screener's database. */
  sql: pg.Client;
  close(): Promise<void>;
}

/**
 * Starts the screener, runs `prepare` on its database (data the gateway's first answers should see), then the
 * gateway (JWT secret `jwtSecret`, ready once the screener is).
 */
export async function startScreenerStack(
  name: string,
  opts: { jwtSecret: string; screenerLogger?: Logger; prepare?: (sql: pg.Client) => Promise<void> },
): Promise<ScreenerStack> {
  const busPrefix = `${uniqueName(name)}.`;
  const testDb = await createTestDatabase(name);
  const screener = await createScreenerApp({
    databaseUrl: testDb.url,
    natsUrl: testNatsUrl(),
    busPrefix,
    loadDemoData: true,
    logger: opts.screenerLogger ?? createLogger('screener', 'silent'),
  });
  const sql = new pg.Client({ connectionString: testDb.url });
  await sql.connect();
  await opts.prepare?.(sql);
  const gw = await createGatewayApp({
    natsUrl: testNatsUrl(),
    busPrefix,
    auth: { jwtSecret: opts.jwtSecret },
    rpcTimeoutMs: 5000,
    readyServices: ['screener'],
    logger: createLogger('gateway', 'silent'),
  });
  const base = await gw.listen(0, '127.0.0.1');
  return {
    screener,
    gw,
    base,
    busPrefix,
    sql,
    async close() {
      await gw.close();
      await screener.close();
      await sql.end();
      await testDb.drop();
    },
  };
}
