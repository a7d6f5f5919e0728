import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDemoProviders } from '@invest/platform/demo/demo-providers';
import { demoProviders } from './demo-providers.js';
import { FakeProviders } from './fake-providers.js';

describe('the demo market of npm start', () => {
  let running: RunningDemoProviders;
  beforeAll(async () => {
    running = await demoProviders.start();
  });
  afterAll(() => running?.close());

  it('fills both provider URLs with a local server', () => {
    expect(Object.keys(running.env).sort()).toEqual([...demoProviders.variables].sort());
    for (const url of Object.values(running.env)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('moves: coin and share prices differ from one request to the next, quoted now', async () => {
    const coins = async () => {
      const res = await fetch(`${running.env.COINGECKO_URL}/coins/markets?vs_currency=usd&ids=bitcoin`);
      return ((await res.json()) as { current_price: number; last_updated: string }[])[0]!;
    };
    const [a, b] = [await coins(), await coins()];
    expect(a.current_price).not.toBe(b.current_price);
    expect(Date.now() - Date.parse(b.last_updated)).toBeLessThan(60_000);

    const sber = async () => {
      const res = await fetch(`${running.env.MOEX_ISS_URL}/engines/stock/markets/shares/boards/TQBR/securities.json?iss.meta=off&iss.only=marketdata&securities=SBER`);
      const doc = (await res.json()) as { marketdata: { columns: string[]; data: unknown[][] } };
      return doc.marketdata.data[0]![doc.marketdata.columns.indexOf('LAST')];
    };
    expect(await sber()).not.toBe(await sber());
  });

  it('can serve without keeping a log of requests (a demo runs for days)', async () => {
    const fake = await FakeProviders.start({ live: true, recordRequests: false });
    try {
      await fetch(`${fake.coingeckoUrl}/coins/markets?vs_currency=usd`);
      expect(fake.requests).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
