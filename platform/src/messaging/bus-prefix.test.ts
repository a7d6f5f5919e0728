import { describe, expect, it } from 'vitest';
import { busName, busSubject, normalizeBusPrefix, unprefixedSubject } from './bus-prefix.js';

describe('bus prefix', () => {
  it('joins a prefix to subjects with a dot and to stream and consumer names with an underscore', () => {
    expect(busSubject('probe', 'portfolios.health.ping')).toBe('probe.portfolios.health.ping');
    expect(busName('probe', 'PORTFOLIOS_EVENTS')).toBe('probe_PORTFOLIOS_EVENTS');
    expect(busName('probe', 'portfolios__rates-updated')).toBe('probe_portfolios__rates-updated');
  });

  it('treats an empty prefix as none', () => {
    expect(busSubject('', 'portfolios.health.ping')).toBe('portfolios.health.ping');
    expect(busSubject(undefined, 'a.b')).toBe('a.b');
    expect(busName('', 'MARKET_EVENTS')).toBe('MARKET_EVENTS');
    expect(normalizeBusPrefix('')).toBe('');
  });

  it('ignores a trailing dot, so "probe." and "probe" are one environment', () => {
    expect(busSubject('probe.', 'x.y')).toBe('probe.x.y');
    expect(busName('probe.', 'MARKET_EVENTS')).toBe('probe_MARKET_EVENTS');
  });

  it('turns what a name may not hold into underscores', () => {
    expect(busName('staging.eu west*>', 'MARKET_EVENTS')).toBe('staging_eu_west___MARKET_EVENTS');
    expect(busSubject('staging.eu', 'a')).toBe('staging.eu.a');
  });

  it('strips the prefix from a subject it carries, and only from those', () => {
    expect(unprefixedSubject('probe', 'probe.market.events.RatesUpdated')).toBe('market.events.RatesUpdated');
    expect(unprefixedSubject('probe', 'probex.market.events.RatesUpdated')).toBeUndefined();
    expect(unprefixedSubject('', 'market.events.RatesUpdated')).toBe('market.events.RatesUpdated');
  });
});
