/**
 * The 7-day change across days, weekends and gaps; quote times around midnight Moscow; one job run twice at once.
 * Quote times are driven through the fake ISS (SYSTIME/UPDATETIME, Moscow time without offset).
 */
import { type JobOutcome, createLogger } from '@invest/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScreenerApp } from '../src/screener.app.js';
import { FakeProviders } from '../src/testing/fake-providers.js';
import { type JobScreener, startJobScreener } from './support/job-screener.js';

const logger = createLogger('scr-rate-formulas', 'silent');

let fake: FakeProviders;
let stack: JobScreener;
let screener: ScreenerApp;

beforeAll(async () => {
  fake = await FakeProviders.start();
  stack = await startJobScreener('formulas', { fake, logger, providers: { PROVIDER_TIMEOUT_MS: 1000, PROVIDER_RETRIES: 0, PROVIDER_BACKOFF_MS: 10 } });
  screener = stack.screener;
});

afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const sber = async () =>
  (
    await screener.db.query<{ rate: number; d7: number | null; d24: number | null; at: string }>(
      `select current_rate::float8 as rate, price_change_percentage_7d::float8 as d7, price_change_percentage_24h::float8 as d24,
              to_char(rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at
       from assets where type = 'share' and ticker = 'SBER'`,
    )
  )[0]!;

/** One SBER quote at a Moscow wall-clock time, through the used-assets-free path (shares TQBR only). */
async function quote(mskDateTime: string, last: number, updatetime?: string): Promise<JobOutcome> {
  fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'SYSTIME', mskDateTime);
  fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'UPDATETIME', updatetime ?? mskDateTime.slice(11));
  fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', last);
  fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LASTTOPREVPRICE', 0.5);
  const out = await screener.runJob('get:assetRates', []);
  expect(out.status).toBe('done');
  return out;
}

describe('7-day change', () => {
  it('against the close 7 days back; across a weekend the last close before', async () => {
    await quote('2024-03-01 18:00:00', 250);
    await quote('2024-03-09 18:00:00', 300);
    expect((await sber()).d7).toBeCloseTo(20, 6);
    await quote('2024-03-11 12:00:00', 310); // Monday; 7 days back is Monday 03-04: last close before it is 03-01 (250)
    expect((await sber()).d7).toBeCloseTo(24, 6);
  });

  it('after a gap longer than two weeks there is no base: the 7-day change is unknown, not the old one', async () => {
    await quote('2024-04-30 12:00:00', 400);
    // No close between 04-17 and 04-23: a "week change" of 24 % (measured in March) is not this week's.
    expect((await sber()).d7).toBeNull();
  });
});

describe('quote time around midnight Moscow', () => {
  it('SYSTIME just after midnight with UPDATETIME just before it: the quote is of the previous day', async () => {
    await quote('2024-05-02 00:05:00', 401, '23:50:00');
    expect((await sber()).at).toBe('2024-05-01T20:50:00Z');
  });

  it('UPDATETIME a second after SYSTIME (clock jitter): the same day, not 24 hours back', async () => {
    await quote('2024-05-02 12:00:00', 402, '12:00:01');
    const s = await sber();
    expect(s.rate).toBe(402);
    expect(s.at).toBe('2024-05-02T09:00:01Z');
  });
});

describe('a job run twice at once', () => {
  it('update:shares-market-stats started twice concurrently: one runs, the other is locked', async () => {
    // Slow answers so both runs overlap.
    fake.fail(/\/boards\/TQBR\/securities\.json/, { delayMs: 300, status: 200, body: JSON.stringify({ securities: { columns: ['SECID'], data: [] }, marketdata: { columns: ['SECID', 'BOARDID'], data: [] } }) });
    const [a, b] = await Promise.all([screener.runJob('update:shares-market-stats', []), screener.runJob('update:shares-market-stats', [])]);
    expect([a.status, b.status].sort()).toEqual(['done', 'locked']);
  });
});
