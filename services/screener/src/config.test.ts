import { ConfigError, loadConfig } from '@invest/platform/config/load-config';
import { describe, expect, it } from 'vitest';
import { screenerConfigSchema } from './config.js';

describe('screenerConfigSchema', () => {
  it('has defaults for everything', () => {
    expect(loadConfig(screenerConfigSchema, {})).toMatchObject({
      BUS_PREFIX: '',
      DEMO_DATA: true,
      MARKET_TZ: 'Europe/Moscow',
      LOG_LEVEL: 'info',
      JOBS_ENABLED: true,
      MOEX_ISS_URL: 'https://iss.moex.com/iss',
      COINGECKO_URL: 'https://api.coingecko.com/api/v3',
      MAIN_COINS: expect.arrayContaining(['bitcoin', 'ethereum', 'tether', 'usd-coin', 'binancecoin']),
    });
    expect(loadConfig(screenerConfigSchema, {}).COINGECKO_API_KEY).toBeUndefined();
  });
  it('reads provider settings', () => {
    const c = loadConfig(screenerConfigSchema, {
      MOEX_ISS_URL: 'http://127.0.0.1:4010/iss',
      COINGECKO_API_KEY: 'demo-key',
      MAIN_COINS: ' Bitcoin, ethereum,,bitcoin ',
      JOBS_ENABLED: 'off',
      PROVIDER_RETRIES: '0',
    });
    expect(c).toMatchObject({ MOEX_ISS_URL: 'http://127.0.0.1:4010/iss', COINGECKO_API_KEY: 'demo-key', MAIN_COINS: ['bitcoin', 'ethereum'], JOBS_ENABLED: false, PROVIDER_RETRIES: 0 });
    expect(() => loadConfig(screenerConfigSchema, { MOEX_ISS_URL: 'iss.moex.com' })).toThrow(/MOEX_ISS_URL/);
    expect(() => loadConfig(screenerConfigSchema, { MAIN_COINS: 'bit coin' })).toThrow(/MAIN_COINS/);
    expect(() => loadConfig(screenerConfigSchema, { PROVIDER_TIMEOUT_MS: '0' })).toThrow(/PROVIDER_TIMEOUT_MS/);
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
