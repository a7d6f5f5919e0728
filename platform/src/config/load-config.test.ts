import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { natsServers } from '../messaging/nats-connection.js';
import { baseConfigSchema, ConfigError, loadConfig, metricsSettingsFrom, serviceBaseConfig, serviceDatabaseUrl } from './load-config.js';

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

  it('takes JETSTREAM_REPLICAS from 1 to 5 (default 1) and NATS_URL as one URL or a comma-separated list', () => {
    expect(loadConfig(schema, {}).JETSTREAM_REPLICAS).toBe(1);
    expect(loadConfig(schema, { JETSTREAM_REPLICAS: '3' }).JETSTREAM_REPLICAS).toBe(3);
    for (const bad of ['0', '6', '2.5', 'three']) {
      expect(() => loadConfig(schema, { JETSTREAM_REPLICAS: bad }), bad).toThrow(/JETSTREAM_REPLICAS: /);
    }
    const cluster = 'nats://n1:4222, nats://n2:4222,nats://user:secret@n3:4222';
    expect(loadConfig(schema, { NATS_URL: cluster }).NATS_URL).toBe(cluster);
    expect(natsServers(cluster)).toEqual(['nats://n1:4222', 'nats://n2:4222', 'nats://user:secret@n3:4222']);
    expect(loadConfig(schema, { NATS_URL: '127.0.0.1:4222' }).NATS_URL).toBe('127.0.0.1:4222');
    for (const bad of [',', 'http://n1:4222', 'nats://n1:4222 nats://n2:4222']) {
      expect(() => loadConfig(schema, { NATS_URL: bad }), bad).toThrow(/NATS_URL: /);
    }
  });

  it('derives one database per service from DATABASE_URL unless the service has its own', () => {
    expect(serviceDatabaseUrl('screener', { DATABASE_URL: 'postgres://u:p@db:5433/whatever' })).toBe('postgres://u:p@db:5433/invest_screener');
    expect(serviceDatabaseUrl('screener', { SCREENER_DATABASE_URL: 'postgres://x/y' })).toBe('postgres://x/y');
  });
});

describe('serviceBaseConfig', () => {
  const env = { ...loadConfig(baseConfigSchema, { NATS_URL: 'nats://a:4222,nats://b:4222', JETSTREAM_REPLICAS: '3', LOG_LEVEL: 'warn' }), BUS_PREFIX: 'p1' };
  it("takes the service's own database URL when set, else its database on DATABASE_URL's server, and the bus settings", () => {
    expect(serviceBaseConfig('alerts', { ...env, DATABASE_URL: 'postgres://u@h:5433/x', ALERTS_DATABASE_URL: 'postgres://own@h/own' })).toEqual({
      databaseUrl: 'postgres://own@h/own',
      natsUrl: 'nats://a:4222,nats://b:4222',
      jetstreamReplicas: 3,
      busPrefix: 'p1',
      logLevel: 'warn',
      metrics: { host: '127.0.0.1', consumerLagSampleMs: 10_000, consumerStuckAfterMs: 120_000 },
    });
    expect(serviceBaseConfig('alerts', { ...env, DATABASE_URL: 'postgres://u@h:5433/x', BILLING_DATABASE_URL: 'postgres://other@h/b' }).databaseUrl).toBe('postgres://u@h:5433/invest_alerts');
  });
});

describe('metrics settings', () => {
  it('serve no metrics unless METRICS_PORT is set, and name a bad port or stuck time', () => {
    expect(metricsSettingsFrom(loadConfig(baseConfigSchema, {})).port).toBeUndefined();
    expect(metricsSettingsFrom(loadConfig(baseConfigSchema, { METRICS_PORT: '9464', CONSUMER_STUCK_AFTER_SECONDS: '30', NODE_ENV: 'production' }))).toEqual({
      port: 9464,
      host: '0.0.0.0',
      consumerLagSampleMs: 10_000,
      consumerStuckAfterMs: 30_000,
    });
    expect(() => loadConfig(baseConfigSchema, { METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig(baseConfigSchema, { METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig(baseConfigSchema, { CONSUMER_STUCK_AFTER_SECONDS: '0' })).toThrow(/CONSUMER_STUCK_AFTER_SECONDS/);
  });
});
