/**
 * The whole system for end-to-end tests: the real screener (demo data) and portfolios services and the
 * gateway on a free port, each on a fresh database, all on one unique bus prefix. `close()` stops them,
 * removes the prefix's streams and drops the databases.
 */
import { type Bus, connectBus, createLogger, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createPortfoliosApp, type PortfoliosApp, type PortfoliosAppOptions } from '@invest/portfolios/portfolios.app';
import { createScreenerApp, type ScreenerApp, type ScreenerAppOptions } from '@invest/screener/screener.app';
import { createGatewayApp, type GatewayApp, type GatewayAppOptions } from '@invest/gateway/gateway.app';

type Common = 'databaseUrl' | 'natsUrl' | 'busPrefix' | 'logger';

export interface FullStackOptions {
  /** Short name: database and bus prefix names start with it. */
  name: string;
  /** Demo-data share tickers whose asset ids the tests need (checked to exist). */
  tickers: string[];
  screener?: Omit<Partial<ScreenerAppOptions>, Common>;
  portfolios?: Omit<Partial<PortfoliosAppOptions>, Common>;
  gateway?: Omit<Partial<GatewayAppOptions>, 'natsUrl' | 'busPrefix' | 'logger'>;
}

export interface FullStack {
  screener: ScreenerApp;
  portfolios: PortfoliosApp;
  gw: GatewayApp;
  /** The gateway's base URL. */
  base: string;
  bus: Bus;
  busPrefix: string;
  /** Asset id of each requested ticker. */
  shareIds: Record<string, number>;
  close(): Promise<void>;
}

export async function startFullStack(opts: FullStackOptions): Promise<FullStack> {
  const busPrefix = `${uniqueName(opts.name)}.`;
  const logger = createLogger('test', 'silent');
  const screenerDb = await createTestDatabase(`${opts.name}_scr`);
  const portfoliosDb = await createTestDatabase(opts.name);
  const natsUrl = testNatsUrl();
  const screener = await createScreenerApp({ loadDemoData: true, ...opts.screener, databaseUrl: screenerDb.url, natsUrl, busPrefix, logger });
  const shareIds: Record<string, number> = {};
  for (const r of await screener.db.query<{ id: string; ticker: string }>(
    "select id::text, ticker from assets where type = 'share' and ticker = any($1::text[])",
    [opts.tickers],
  )) {
    shareIds[r.ticker] = Number(r.id);
  }
  const missing = opts.tickers.filter((t) => !(t in shareIds));
  if (missing.length) throw new Error(`demo data lacks ${missing.join(', ')}`);
  const portfolios = await createPortfoliosApp({ ...opts.portfolios, databaseUrl: portfoliosDb.url, natsUrl, busPrefix, logger });
  const gw = await createGatewayApp({ rpcTimeoutMs: 5000, ...opts.gateway, natsUrl, busPrefix, logger });
  const base = await gw.listen(0, '127.0.0.1');
  const bus = await connectBus({ natsUrl, name: `${opts.name}-test`, prefix: busPrefix });
  return {
    screener,
    portfolios,
    gw,
    base,
    bus,
    busPrefix,
    shareIds,
    async close() {
      await gw.close();
      await portfolios.close();
      await screener.close();
      for (const ctx of ['portfolios', 'market'] as const) await bus.jsm.streams.delete(streamNameOf(bus, ctx)).catch(() => undefined);
      await bus.close();
      await portfoliosDb.drop();
      await screenerDb.drop();
    },
  };
}
