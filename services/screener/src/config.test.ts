import { ConfigError, loadConfig } from '@invest/platform';
import { describe, expect, it } from 'vitest';
import { screenerConfigSchema } from './config.js';

describe('screenerConfigSchema', () => {
  it('has defaults for everything', () => {
    expect(loadConfig(screenerConfigSchema, {})).toMatchObject({ BUS_PREFIX: '', DEMO_DATA: true, MARKET_TZ: 'Europe/Moscow', LOG_LEVEL: 'info' });
  });
  it('reads DEMO_DATA as a flag', () => {
    expect(loadConfig(screenerConfigSchema, { DEMO_DATA: 'false' }).DEMO_DATA).toBe(false);
    expect(loadConfig(screenerConfigSchema, { DEMO_DATA: '0' }).DEMO_DATA).toBe(false);
    expect(loadConfig(screenerConfigSchema, { DEMO_DATA: 'TRUE' }).DEMO_DATA).toBe(true);
  });
  it('names the bad variable', () => {
    expect(() => loadConfig(screenerConfigSchema, { DEMO_DATA: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig(screenerConfigSchema, { DEMO_DATA: 'maybe' })).toThrow(/DEMO_DATA/);
    expect(() => loadConfig(screenerConfigSchema, { MARKET_TZ: 'Mars/Base' })).toThrow(/MARKET_TZ/);
  });
});
