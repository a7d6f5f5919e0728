/**
 * The screener while NATS is away (a private nats-server the test stops and starts): rates recorded during the
 * outage reach MARKET_EVENTS once NATS is back (the relay recovers on its own), and close() does not hang
 * while NATS is still down.
 */
import { type Bus, connectBus, createLogger, streamNameOf } from '@invest/platform';
import { PrivateNats, createTestDatabase, skipWithoutNatsServer } from '@invest/platform/testing/index';
import { afterAll, describe, expect, it } from 'vitest';
import { CustomAssetsService } from '../src/custom-assets/custom-assets.service.js';
import { type ScreenerApp, createScreenerApp } from '../src/screener.app.js';

describe.skipIf(skipWithoutNatsServer)('screener during a NATS outage', () => {
  let nats: PrivateNats | undefined;
  let db: { url: string; drop(): Promise<void> } | undefined;
  let screener: ScreenerApp | undefined;
  let bus: Bus | undefined;
  afterAll(async () => {
    await bus?.close();
    await screener?.close();
    await nats?.stop();
    await db?.drop();
  });

  const marketMessages = async () => (await bus!.jsm.streams.info(streamNameOf(bus!, 'market'))).state.messages;

  it('publishes what was recorded during the outage once NATS is back', async () => {
    nats = await PrivateNats.start();
    db = await createTestDatabase('scr_outage');
    screener = await createScreenerApp({ databaseUrl: db.url, natsUrl: nats.url, logger: createLogger('screener', 'silent'), loadDemoData: false, relayPollMs: 50 });
    bus = await connectBus({ natsUrl: nats.url, name: 'outage-test' });
    const owner = new CustomAssetsService(screener.db, () => '2026-03-02', { usesOf: () => Promise.resolve([]) });

    await owner.create('u1', { name: 'Before', currency: 'RUB', price: 1 });
    await expect.poll(marketMessages, { timeout: 5_000 }).toBe(1);

    await nats.kill();
    await owner.create('u1', { name: 'During', currency: 'RUB', price: 2 });
    await new Promise((r) => setTimeout(r, 3_000));
    await nats.resume();

    await expect.poll(marketMessages, { timeout: 40_000, interval: 500 }).toBe(2);
  }, 60_000);

  it('fails to start, promptly and without leaving connections, when NATS is down at start', async () => {
    await nats!.kill();
    const started = Date.now();
    const err = await createScreenerApp({ databaseUrl: db!.url, natsUrl: nats!.url, logger: createLogger('screener', 'silent'), loadDemoData: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);

  it('closes within a few seconds while NATS is down', async () => {
    await nats!.kill();
    const started = Date.now();
    const closed = await Promise.race([
      screener!.close().then(() => 'closed'),
      new Promise((r) => setTimeout(() => r('still closing after 8 s'), 8_000)),
    ]);
    expect(closed).toBe('closed');
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 20_000);
});
