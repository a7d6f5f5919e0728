import { createLogger } from '@invest/platform/logging/logger';
import { type Bus, connectBus } from '@invest/platform/messaging/bus';
import { busSubject } from '@invest/platform/messaging/bus-prefix';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketEventsInvalidator } from './market-events.invalidator.js';

const prefix = uniqueName('gwinval');
let bus: Bus;
let publisher: Bus;

beforeAll(async () => {
  bus = await connectBus({ natsUrl: testNatsUrl(), name: 'invalidator-test', prefix });
  publisher = await connectBus({ natsUrl: testNatsUrl(), name: 'invalidator-test-publisher', prefix });
});

afterAll(async () => {
  await bus?.close();
  await publisher?.close();
});

/** Publishes, then waits until the subscriber's connection has seen everything sent before a round trip. */
async function publish(subject: string): Promise<void> {
  publisher.nc.publish(subject, '{}');
  await publisher.nc.flush();
  await bus.nc.flush();
}

describe('MarketEventsInvalidator (real NATS)', () => {
  it('is not live without a connection, subscribes once per connection, and hears every market event of its prefix only', async () => {
    const changes: number[] = [];
    const current: { nc?: typeof bus.nc } = {};
    const invalidator = new MarketEventsInvalidator({
      connection: () => current.nc,
      busPrefix: prefix,
      onChange: () => changes.push(1),
      logger: createLogger('test', 'silent'),
    });
    expect(invalidator.live()).toBe(false);
    current.nc = bus.nc;
    expect(invalidator.live()).toBe(true);
    expect(changes).toHaveLength(1); // a new connection starts from an empty cache
    expect(invalidator.live()).toBe(true);
    await bus.nc.flush();
    expect(changes).toHaveLength(1);

    await publish(busSubject(prefix, 'market.events.RatesUpdated'));
    await publish(busSubject(prefix, 'market.events.AssetDeleted.42'));
    expect(changes).toHaveLength(3);
    await publish(busSubject(prefix, 'portfolios.events.PortfolioCreated'));
    // Another prefix stands for the unprefixed subjects too: a message there would land in the stream of a
    // system running beside the suite (its consumers would dead-letter it and log an error).
    await publish(busSubject(`${prefix}x`, 'market.events.RatesUpdated'));
    expect(changes).toHaveLength(3);

    invalidator.close();
    await publish(busSubject(prefix, 'market.events.RatesUpdated'));
    expect(changes).toHaveLength(3);
  });

  it('a connection that failed to give itself counts as not live', () => {
    const invalidator = new MarketEventsInvalidator({
      connection: () => {
        throw new Error('Not initialized. Please call the "connect" method first.');
      },
      busPrefix: prefix,
      onChange: () => undefined,
      logger: createLogger('test', 'silent'),
    });
    expect(invalidator.live()).toBe(false);
  });
});
