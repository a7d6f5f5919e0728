/**
 * Statistics caches under changes that land while a statistics read is in flight (real Postgres): the
 * read may answer what it saw, but it must never leave a cache entry that outlives the change.
 */
import { randomUUID } from 'node:crypto';
import { createLogger, type Db, openDatabase } from '@invest/platform';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/migrations/index.js';
import { PortfolioService } from '../src/portfolios/portfolio.service.js';
import { StatisticsService } from '../src/statistics/statistics.service.js';

const logger = createLogger('portfolios-test', 'silent');
const USER = `u-${randomUUID()}`;
let db: Db;
let drop: () => Promise<void>;

/** The real database, with a hook run once just before the first query whose SQL contains `marker`. */
function withHookBefore(marker: string, hook: () => Promise<void>): Db {
  let armed = true;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
      return async (sql: string, params?: readonly unknown[]) => {
        if (armed && sql.includes(marker)) {
          armed = false;
          await hook();
        }
        return target.query(sql, params);
      };
    },
  });
}

beforeAll(async () => {
  const t = await createTestDatabase('pfstatrace');
  drop = t.drop;
  db = await openDatabase({ url: t.url, migrations, logger });
});

afterAll(async () => {
  await db?.close();
  await drop?.();
});

describe('statistics cache races', () => {
  it('a currency change between the probe and the computation never leaves the old currency cached', async () => {
    const portfolios = new PortfolioService(db);
    const { data: p } = await portfolios.create(USER, { name: 'Race', currency_code: 'RUB' });
    // The currency changes after the read has looked at the portfolio, before it loads the deals.
    const racing = withHookBefore('from portfolios p left join deals d', async () => {
      await portfolios.update(USER, { id: p.id, currency_code: 'USD' });
    });
    await new StatisticsService(racing, logger, () => new Date()).get(USER, { portfolio_id: p.id });

    const next = await new StatisticsService(db, logger, () => new Date()).get(USER, { portfolio_id: p.id });
    expect(next.data.totals.currency).toBe('USD');
  });

  it('a portfolio deleted while its statistics are being stored is a 404 or an answer, never an internal error', async () => {
    const portfolios = new PortfolioService(db);
    const { data: p } = await portfolios.create(USER, { name: 'Gone', currency_code: 'RUB' });
    let deleting: Promise<unknown> | undefined;
    // The delete has removed the row but not yet committed when the state cache row is written.
    const racing = withHookBefore('insert into statistics_state', async () => {
      let removed!: () => void;
      const rowGone = new Promise<void>((resolve) => (removed = resolve));
      deleting = db.transaction(async (tx) => {
        await tx.query('delete from portfolios where id = $1', [p.id]);
        removed();
        await new Promise((r) => setTimeout(r, 200));
      });
      await rowGone;
    });
    const outcome = await new StatisticsService(racing, logger, () => new Date()).get(USER, { portfolio_id: p.id }).then(
      (reply) => reply.meta.source,
      (err: unknown) => (err as { code?: string }).code ?? String(err),
    );
    await deleting;
    expect(['computed', 'not_found']).toContain(outcome);
  });
});
