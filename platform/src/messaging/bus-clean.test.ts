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
import { busName, busSubject } from './bus-prefix.js';

@Module({ controllers: [createHealthController('probe')] })
class ProbeModule {}

describe('a bus prefix on the real NATS', () => {
  const prefix = uniqueName('clean');
  // A neighbour that must survive: same leading letters.
  const similar = `${prefix}x`;
  let bus: Bus;
  let others: Bus[] = [];
  beforeAll(async () => {
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bus-clean-test', prefix });
    others = await Promise.all([similar].map((p) => connectBus({ natsUrl: testNatsUrl(), name: 'bus-clean-test', prefix: p })));
  });
  afterAll(async () => {
    for (const b of [bus, ...others]) {
      for (const ctx of ['market', 'portfolios'] as const) await b?.jsm.streams.delete(streamNameOf(b, ctx)).catch(() => undefined);
      await b?.jsm.streams.delete(busName(b.prefix, 'CHAT_STREAMS')).catch(() => undefined);
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

  it("removes every stream and consumer named with the prefix, whatever the stream, and nothing of another prefix", async () => {
    for (const b of [bus, ...others]) {
      for (const ctx of ['market', 'portfolios'] as const) await ensureEventStream(b, ctx);
      // A stream no catalog lists (chat's answer streams), with consumers of its own.
      await b.jsm.streams.add({ name: busName(b.prefix, 'CHAT_STREAMS'), subjects: [busSubject(b.prefix, 'chat.streams.>')] });
      await b.jsm.consumers.add(busName(b.prefix, 'CHAT_STREAMS'), { name: busName(b.prefix, 'reader-1'), ack_policy: AckPolicy.None });
    }
    const consumer = busName(prefix, 'alerts__rates-updated');
    await bus.jsm.consumers.add(streamNameOf(bus, 'market'), { durable_name: consumer, ack_policy: AckPolicy.Explicit });
    await bus.js.publish(`${prefix}.market.events.RatesUpdated`, '{}');
    // A consumer of this prefix on another prefix's stream goes; that stream and its own consumer stay.
    const foreign = streamNameOf(others[0]!, 'market');
    const stray = busName(prefix, 'stray');
    await bus.jsm.consumers.add(foreign, { durable_name: stray, ack_policy: AckPolicy.Explicit });

    const mine = [`${prefix}_CHAT_STREAMS`, `${prefix}_MARKET_EVENTS`, `${prefix}_PORTFOLIOS_EVENTS`];
    const dry = await cleanBusPrefix(bus.jsm, prefix, { dryRun: true });
    expect(dry.streams.map((s) => s.name).sort()).toEqual(mine);
    expect(dry.consumers).toEqual([`${foreign}/${stray}`]);
    expect(await bus.jsm.streams.info(streamNameOf(bus, 'market'))).toBeTruthy();

    const report = await cleanBusPrefix(bus.jsm, `${prefix}.`);
    expect(report.streams).toEqual(
      expect.arrayContaining([
        { name: `${prefix}_CHAT_STREAMS`, messages: 0, consumers: [busName(prefix, 'reader-1')] },
        { name: `${prefix}_MARKET_EVENTS`, messages: 1, consumers: [consumer] },
        { name: `${prefix}_PORTFOLIOS_EVENTS`, messages: 0, consumers: [] },
      ]),
    );
    expect(report.consumers).toEqual([`${foreign}/${stray}`]);
    for (const name of mine) await expect(bus.jsm.streams.info(name)).rejects.toThrow(/not found/i);
    for (const b of others) {
      for (const ctx of ['market', 'portfolios'] as const) expect((await b.jsm.streams.info(streamNameOf(b, ctx))).config.name).toBe(streamNameOf(b, ctx));
      expect((await b.jsm.consumers.info(busName(b.prefix, 'CHAT_STREAMS'), busName(b.prefix, 'reader-1'))).name).toBe(busName(b.prefix, 'reader-1'));
    }
    await expect(bus.jsm.consumers.info(foreign, stray)).rejects.toThrow(/not found/i);
    expect(await cleanBusPrefix(bus.jsm, prefix)).toEqual({ prefix, streams: [], consumers: [] });
  });

  it('refuses an empty prefix, which names the unprefixed streams', async () => {
    await expect(cleanBusPrefix(bus.jsm, '')).rejects.toThrow(/empty prefix/);
    await expect(cleanBusPrefix(bus.jsm, '.')).rejects.toThrow(/empty prefix/);
  });

  it("refuses a prefix whose names start like the unprefixed environment's streams or durables", async () => {
    for (const prefix of ['portfolios', 'screener', 'MARKET', 'CHAT', 'PORTFOLIOS', 'alerts']) {
      await expect(cleanBusPrefix(bus.jsm, prefix), prefix).rejects.toThrow(/unprefixed/);
    }
    const lines: string[] = [];
    const deps = { natsUrl: testNatsUrl(), out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };
    expect(await busCleanCommand(['MARKET', '--dry-run'], deps)).toBe(64);
    expect(lines).toEqual([expect.stringMatching(/^ERR prefix "MARKET" would also match the unprefixed MARKET_EVENTS/)]);
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
    expect(lines.slice(1)).toEqual([`removed stream ${prefix}_MARKET_EVENTS (0 messages; consumers: none)`, `no streams or consumers of prefix "${prefix}" on ${testNatsUrl()}`]);
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
