/**
 * The platform's metrics on the real Postgres and NATS: the metrics server serves prom-client's registry; a
 * durable consumer whose handler is held shows its lag rising, in messages and in seconds, and then reports
 * itself stuck through the service's health ping; redeliveries and dead letters; the relay's outbox depth; a
 * job's metrics.
 */
import { randomUUID } from 'node:crypto';
import type { BusEvent } from '@invest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.js';
import { appendToStream } from '../event-store/event-store.js';
import { eventStoreMigration } from '../event-store/event-store.migration.js';
import { createHealthController } from '../health/health.controller.js';
import { ServiceResources } from '../lifecycle/service-resources.js';
import { createLogger } from '../logging/logger.js';
import { type Bus, connectBus, ensureEventStream, streamNameOf } from '../messaging/bus.js';
import { busSubject } from '../messaging/bus-prefix.js';
import { deadLetterMigration } from '../messaging/dead-letter.migration.js';
import { DurableConsumer } from '../messaging/durable-consumer.js';
import { EventRelay } from '../messaging/event-relay.js';
import { JobScheduler, runJob } from '../jobs/job-runner.js';
import { metricValue } from '../testing/metric-value.js';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { startMetricsServer } from './metrics-server.js';

const silent = createLogger('metrics-test', 'silent');

let db: Db;
useTestDatabase('metrics', [eventStoreMigration, deadLetterMigration], (opened) => (db = opened));

describe('platform metrics', () => {
  let bus: Bus;
  let stream: string;
  const prefix = `${uniqueName('pm')}.`;
  beforeAll(async () => {
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'metrics-test', prefix });
    stream = await ensureEventStream(bus, 'market');
  });
  afterAll(async () => {
    await bus?.jsm.streams.delete(streamNameOf(bus, 'market')).catch(() => undefined);
    await bus?.close();
  });

  it('serves the registry on GET /metrics with the service label, and nothing else', async () => {
    const server = await startMetricsServer({ port: 0, service: 'probe', logger: silent });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      // Node's own metrics, labelled with the service.
      expect(text).toMatch(/^process_cpu_user_seconds_total\{service="probe"\} /m);
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
    await expect(fetch(`http://127.0.0.1:${server.port}/metrics`)).rejects.toThrow();
  });

  it('shows a held consumer lagging in messages and seconds, then stuck in the health ping, until it moves', async () => {
    const key = randomUUID().slice(0, 8);
    const subject = `market.events.Counted.${key}`;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const consumer = new DurableConsumer({
      db,
      bus,
      stream,
      durableName: `test__${key}`,
      filterSubject: subject,
      logger: silent,
      ackWaitMs: 2_000,
      pullExpiresMs: 1_000,
      replayPollMs: 60_000,
      lagSampleMs: 100,
      stuckAfterMs: 1_500,
      handle: () => held,
    });
    const labels = { consumer: consumer.consumerName };
    const res = new ServiceResources(silent);
    const ping = () => new (createHealthController('probe', res.problems))().ping();
    await res.start(consumer);
    try {
      const publish = () => {
        const event: BusEvent = { id: randomUUID(), type: 'Counted', streamName: `c-${key}`, streamPosition: 1, recordedAt: new Date().toISOString(), data: {}, metadata: {} };
        return bus.js.publish(busSubject(prefix, subject), JSON.stringify(event));
      };
      await publish();
      await publish();
      await publish();
      await expect.poll(() => metricValue('invest_consumer_lag_messages', labels), { timeout: 10_000 }).toBe(3);
      const early = await metricValue('invest_consumer_lag_seconds', labels);
      await expect.poll(() => metricValue('invest_consumer_lag_seconds', labels), { timeout: 10_000 }).toBeGreaterThan(early);
      expect((await ping()).ok).toBe(true);

      await expect.poll(() => ping(), { timeout: 10_000 }).toMatchObject({ ok: false });
      const reply = await ping();
      expect(reply.problems).toEqual([expect.stringMatching(new RegExp(`^consumer ${consumer.consumerName} stuck: 3 messages waiting`))]);
      expect(await metricValue('invest_consumer_lag_seconds', labels)).toBeGreaterThanOrEqual(1);

      release();
      await expect.poll(() => metricValue('invest_consumer_lag_messages', labels), { timeout: 10_000 }).toBe(0);
      expect(await metricValue('invest_consumer_lag_seconds', labels)).toBe(0);
      expect(await ping()).toMatchObject({ ok: true, problems: [] });
      expect(await metricValue('invest_consumer_last_processed_timestamp_seconds', labels)).toBeGreaterThan(Date.now() / 1000 - 60);

      // The registry serves them under their agreed names.
      const server = await startMetricsServer({ port: 0, service: 'probe', logger: silent });
      try {
        const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
        for (const name of ['invest_consumer_lag_messages', 'invest_consumer_lag_seconds', 'invest_consumer_last_processed_timestamp_seconds']) {
          expect(text).toContain(`${name}{stream="${stream}",consumer="${consumer.consumerName}",service="probe"}`);
        }
      } finally {
        await server.close();
      }
    } finally {
      release();
      await res.stop();
    }
  });

  it('counts redeliveries and dead letters of a consumer whose handler keeps failing', async () => {
    const key = randomUUID().slice(0, 8);
    const subject = `market.events.Failing.${key}`;
    const consumer = new DurableConsumer({
      db,
      bus,
      stream,
      durableName: `test__${key}`,
      filterSubject: subject,
      logger: silent,
      pullExpiresMs: 1_000,
      replayPollMs: 60_000,
      maxDeliver: 2,
      retryBaseMs: 50,
      handle: () => Promise.reject(new Error('always fails')),
    });
    const labels = { consumer: consumer.consumerName };
    await consumer.start();
    try {
      const event: BusEvent = { id: randomUUID(), type: 'Failing', streamName: `f-${key}`, streamPosition: 1, recordedAt: new Date().toISOString(), data: {}, metadata: {} };
      await bus.js.publish(busSubject(prefix, subject), JSON.stringify(event));
      await expect.poll(() => metricValue('invest_consumer_dead_letters_total', labels), { timeout: 10_000 }).toBe(1);
      expect(await metricValue('invest_consumer_redeliveries_total', labels)).toBe(1);
    } finally {
      await consumer.stop();
    }
  });

  it("measures the relay's outbox: depth and oldest age before it publishes, nothing after", async () => {
    const relay = new EventRelay({ db, bus, name: `relay-${randomUUID()}`, logger: silent, subjectFor: () => null });
    await relay.runOnce();
    expect(await relay.sampleOutbox()).toEqual({ depth: 0, oldestAgeSeconds: 0 });
    await db.transaction((tx) => appendToStream(tx, `s-${randomUUID()}`, [{ type: 'Noted', data: {} }, { type: 'Noted', data: {} }]));
    await db.transaction((tx) => appendToStream(tx, `s-${randomUUID()}`, [{ type: 'Noted', data: {} }]));
    const waiting = await relay.sampleOutbox();
    expect(waiting.depth).toBe(3);
    expect(await metricValue('invest_outbox_depth')).toBe(3);
    await expect.poll(async () => (await relay.sampleOutbox()).oldestAgeSeconds).toBeGreaterThan(waiting.oldestAgeSeconds);
    await relay.runOnce();
    expect(await relay.sampleOutbox()).toEqual({ depth: 0, oldestAgeSeconds: 0 });
    expect(await metricValue('invest_outbox_oldest_age_seconds')).toBe(0);
  });

  it("records a job's last success, duration, failures and interval", async () => {
    const name = `job-${randomUUID().slice(0, 8)}`;
    let fail = false;
    const job = {
      name,
      schedule: { everyMinutes: 5 },
      run: async () => {
        if (fail) throw new Error('provider down');
        return { fetched: 1, changed: 0, skipped: 0 };
      },
    };
    const labels = { job: name };
    expect((await runJob(db, job, [], silent)).status).toBe('done');
    expect(await metricValue('invest_job_last_success_timestamp_seconds', labels)).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(await metricValue('invest_job_duration_seconds', labels, '_count')).toBe(1);
    fail = true;
    expect((await runJob(db, job, [], silent)).status).toBe('failed');
    expect(await metricValue('invest_job_failures_total', labels)).toBe(1);
    expect(await metricValue('invest_job_duration_seconds', labels, '_count')).toBe(2);

    const scheduler = new JobScheduler(db, silent);
    scheduler.schedule(job);
    await scheduler.stop();
    expect(await metricValue('invest_job_interval_seconds', labels)).toBe(300);
  });
});
