import { Module, type INestMicroservice } from '@nestjs/common';
import { AckPolicy } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHealthController } from '../health/health.controller.js';
import { createLogger } from '../logging/logger.js';
import { startRpcService } from '../rpc/rpc-server.js';
import { runSourceMain } from '../testing/run-source-main.js';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { type Bus, connectBus, ensureEventStream, streamNameOf } from './bus.js';
import { busCleanCommand, cleanBusPrefix } from './bus-clean.js';
import { busName } from './bus-prefix.js';

@Module({ controllers: [createHealthController('probe')] })
class ProbeModule {}

describe('a bus prefix on the real NATS', () => {
  const prefix = uniqueName('clean');
  // Neighbours that must survive: same leading letters, and a nested prefix.
  const similar = `${prefix}x`;
  const nested = `${prefix}.sub`;
  let bus: Bus;
  let others: Bus[] = [];
  beforeAll(async () => {
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bus-clean-test', prefix });
    others = await Promise.all([similar, nested].map((p) => connectBus({ natsUrl: testNatsUrl(), name: 'bus-clean-test', prefix: p })));
  });
  afterAll(async () => {
    for (const b of [bus, ...others]) {
      for (const ctx of ['market', 'portfolios'] as const) await b?.jsm.streams.delete(streamNameOf(b, ctx)).catch(() => undefined);
      await b?.close();
    }
  });

  it('puts a separator between the prefix and subjects, stream and consumer names', async () => {
    const stream = await ensureEventStream(bus, 'market');
    expect(stream).toBe(`${prefix}_MARKET_EVENTS`);
    expect((await bus.jsm.streams.info(stream)).config.subjects).toEqual([`${prefix}.market.events.>`]);

    const app: INestMicroservice = await startRpcService(ProbeModule, { name: 'probe', natsUrl: testNatsUrl(), logger: createLogger('probe', 'silent'), busPrefix: prefix });
    try {
      const reply = await pingOnceSubscribed(bus, `${prefix}.probe.health.ping`);
      expect(reply.json<{ response: unknown }>().response).toMatchObject({ ok: true });
    } finally {
      await app.close();
    }
  });

  it("removes a prefix's streams and their consumers, and nothing of another prefix", async () => {
    for (const b of [bus, ...others]) {
      for (const ctx of ['market', 'portfolios'] as const) await ensureEventStream(b, ctx);
    }
    const consumer = busName(prefix, 'alerts__rates-updated');
    await bus.jsm.consumers.add(streamNameOf(bus, 'market'), { durable_name: consumer, ack_policy: AckPolicy.Explicit });
    await bus.js.publish(`${prefix}.market.events.RatesUpdated`, '{}');

    const dry = await cleanBusPrefix(bus.jsm, prefix, { dryRun: true });
    expect(dry.streams.map((s) => s.name).sort()).toEqual([`${prefix}_MARKET_EVENTS`, `${prefix}_PORTFOLIOS_EVENTS`]);
    expect(await bus.jsm.streams.info(streamNameOf(bus, 'market'))).toBeTruthy();

    const report = await cleanBusPrefix(bus.jsm, `${prefix}.`);
    expect(report.streams).toEqual(
      expect.arrayContaining([
        { name: `${prefix}_MARKET_EVENTS`, messages: 1, consumers: [consumer] },
        { name: `${prefix}_PORTFOLIOS_EVENTS`, messages: 0, consumers: [] },
      ]),
    );
    for (const ctx of ['market', 'portfolios'] as const) {
      await expect(bus.jsm.streams.info(streamNameOf(bus, ctx))).rejects.toThrow(/not found/i);
      for (const b of others) expect((await b.jsm.streams.info(streamNameOf(b, ctx))).config.name).toBe(streamNameOf(b, ctx));
    }
    expect((await cleanBusPrefix(bus.jsm, prefix)).streams).toEqual([]);
  });

  it('refuses an empty prefix, which names the unprefixed streams', async () => {
    await expect(cleanBusPrefix(bus.jsm, '')).rejects.toThrow(/empty prefix/);
    await expect(cleanBusPrefix(bus.jsm, '.')).rejects.toThrow(/empty prefix/);
  });

  it('runs as a command: usage errors exit 64, a dry run lists, a run removes', async () => {
    const lines: string[] = [];
    const deps = { natsUrl: testNatsUrl(), out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };
    expect(await busCleanCommand([], deps)).toBe(64);
    expect(await busCleanCommand(['', '--dry-run'], deps)).toBe(64);
    expect(await busCleanCommand([prefix, '--force'], deps)).toBe(64);
    expect(lines.every((l) => l.startsWith('ERR usage'))).toBe(true);

    await ensureEventStream(bus, 'market');
    lines.length = 0;
    expect(await busCleanCommand([prefix, '--dry-run'], deps)).toBe(0);
    expect(lines).toEqual([`would remove stream ${prefix}_MARKET_EVENTS (0 messages; consumers: none)`]);
    expect(await busCleanCommand([prefix], deps)).toBe(0);
    expect(await busCleanCommand([prefix], deps)).toBe(0);
    expect(lines.slice(1)).toEqual([`removed stream ${prefix}_MARKET_EVENTS (0 messages; consumers: none)`, `no streams of prefix "${prefix}" on ${testNatsUrl()}`]);
  });

  it('runs as the real process npm run bus:clean starts', async () => {
    await ensureEventStream(bus, 'portfolios');
    const entry = new URL('./bus-clean.command.ts', import.meta.url).pathname;
    const run = await runSourceMain(entry, { NATS_URL: testNatsUrl() }, 45_000, [prefix]);
    expect(run).toMatchObject({ code: 0, timedOut: false });
    expect(run.stdout).toContain(`removed stream ${prefix}_PORTFOLIOS_EVENTS`);
    await expect(bus.jsm.streams.info(streamNameOf(bus, 'portfolios'))).rejects.toThrow(/not found/i);
    expect(await runSourceMain(entry, { NATS_URL: testNatsUrl() }, 45_000, [''])).toMatchObject({ code: 64 });
  }, 100_000);
});

/**
 * Nest's NATS server resolves `listen` before the server has seen its subscriptions, so a request sent at once
 * may meet "no responders" on a loaded machine; any other error, or no answer within 10 s, fails the test.
 */
async function pingOnceSubscribed(bus: Bus, subject: string) {
  const body = JSON.stringify({ pattern: subject, data: {}, id: '1' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await bus.nc.request(subject, body, { timeout: 5000 });
    } catch (err) {
      if (!/no responders/i.test(String(err)) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
