import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseConfigSchema, ConfigError, loadConfig, serviceDatabaseUrl } from './load-config.js';

describe('loadConfig', () => {
  const schema = baseConfigSchema.extend({ PORT: z.coerce.number().int().min(1).max(65535).default(3000) });

  it('applies defaults and coerces values', () => {
    const c = loadConfig(schema, { PORT: '8080' });
    expect(c).toMatchObject({ PORT: 8080, NATS_URL: 'nats://127.0.0.1:4222', MARKET_TZ: 'Europe/Moscow', LOG_LEVEL: 'info' });
  });

  it('names every bad variable', () => {
    try {
      loadConfig(schema, { PORT: 'eighty', MARKET_TZ: 'Mars/Olympus', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const issues = (err as ConfigError).issues.join('\n');
      expect(issues).toMatch(/^PORT: /m);
      expect(issues).toMatch(/^MARKET_TZ: /m);
      expect(issues).toMatch(/^LOG_LEVEL: /m);
    }
  });

  it('derives one database per service from DATABASE_URL unless the service has its own', () => {
    expect(serviceDatabaseUrl('screener', { DATABASE_URL: 'postgres://u:p@db:5433/whatever' })).toBe('postgres://u:p@db:5433/invest_screener');
    expect(serviceDatabaseUrl('screener', { SCREENER_DATABASE_URL: 'postgres://x/y' })).toBe('postgres://x/y');
  });
});
