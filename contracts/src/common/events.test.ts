import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeMarketEvent, type MarketEvent, MarketEventTypes } from '../market/market-events.js';
import { decodePortfolioEvent, type PortfolioEvent, PortfolioEventTypes } from '../portfolios/portfolio-events.js';
import { assertNever, type BusEvent, isUnknownEvent } from './events.js';

const envelope = (type: string, data: unknown): BusEvent => ({
  id: randomUUID(),
  type,
  streamName: 's-1',
  streamPosition: 1,
  recordedAt: new Date().toISOString(),
  data,
  metadata: {},
});

const rate = { assetType: 'share', assetId: 1, ticker: 'SBER', currency: 'RUB', rate: 300, priceChangePercentage24h: 1, asOf: '2026-01-01T00:00:00Z' };

describe('stream catalogs', () => {
  it('decodes a known type and version into the typed event, with its data checked', () => {
    const decoded = decodeMarketEvent(envelope('RatesUpdated', { version: 1, source: 'job', rates: [rate], extra: 'added later' }));
    expect(isUnknownEvent(decoded)).toBe(false);
    const event = decoded as MarketEvent;
    expect(event.type).toBe(MarketEventTypes.RatesUpdated);
    // An additive change (a field this release does not know) keeps the version and is read.
    expect(event.data).toEqual({ version: 1, source: 'job', rates: [rate] });
  });

  it('marks a version, a type or data this release does not read as unknown, saying why', () => {
    expect(decodeMarketEvent(envelope('RatesUpdated', { version: 2, batches: [] }))).toEqual({
      unknownEvent: expect.stringMatching(/^RatesUpdated version 2 not understood/),
    });
    expect(decodePortfolioEvent(envelope('PortfolioRenamed', { version: 1 }))).toEqual({ unknownEvent: 'unknown type PortfolioRenamed' });
    expect(decodePortfolioEvent(envelope('toString', {}))).toEqual({ unknownEvent: 'unknown type toString' });
    expect(isUnknownEvent(decodePortfolioEvent(envelope('PositionOpened', { version: 1, portfolioId: 1 })))).toBe(true);
  });

  it('gives one type-name constant per catalog entry', () => {
    expect(PortfolioEventTypes).toEqual({
      PortfolioCreated: 'PortfolioCreated',
      PortfolioDeleted: 'PortfolioDeleted',
      PositionOpened: 'PositionOpened',
      PositionClosed: 'PositionClosed',
      WatchlistItemAdded: 'WatchlistItemAdded',
      WatchlistItemRemoved: 'WatchlistItemRemoved',
      WatchlistDeleted: 'WatchlistDeleted',
    });
  });

  it('lets a switch on the type narrow the data, and assertNever throws on what the types ruled out', () => {
    const describeEvent = (e: PortfolioEvent): string => {
      switch (e.type) {
        case 'PortfolioCreated':
          return `created ${e.data.name}`;
        case 'PortfolioDeleted':
          return `deleted ${e.data.portfolioId}`;
        case 'PositionOpened':
        case 'PositionClosed':
          return `${e.type} ${e.data.asset.type}:${e.data.asset.id}`;
        case 'WatchlistItemAdded':
        case 'WatchlistItemRemoved':
        case 'WatchlistDeleted':
          return `${e.type} ${e.data.watchlistId}`;
        default:
          return assertNever(e, 'portfolio event');
      }
    };
    const opened = decodePortfolioEvent(envelope('PositionOpened', { version: 1, portfolioId: 1, userId: 'u', asset: { type: 'share', id: 5 } }));
    expect(describeEvent(opened as PortfolioEvent)).toBe('PositionOpened share:5');
    expect(() => assertNever({ type: 'Nope' } as never, 'portfolio event')).toThrow('unexpected portfolio event: {"type":"Nope"}');
  });

  it('does not type-check a switch that leaves a type out (checked by tsc)', () => {
    const incomplete = (e: PortfolioEvent): string => {
      switch (e.type) {
        case 'PortfolioCreated':
        case 'PortfolioDeleted':
          return e.type;
        default:
          // @ts-expect-error the position and watchlist events are not handled, so `e` is not `never`
          return assertNever(e);
      }
    };
    expect(() => incomplete(decodePortfolioEvent(envelope('PositionClosed', { version: 1, portfolioId: 1, userId: 'u', asset: { type: 'share', id: 5 } })) as PortfolioEvent)).toThrow(
      /unexpected value/,
    );
  });
});
