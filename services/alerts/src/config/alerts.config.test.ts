import { loadConfig } from '@invest/platform/config/load-config';
import { describe, expect, it } from 'vitest';
import { alertsConfigFrom, alertsEnvSchema } from './alerts.config.js';

const load = (env: Record<string, string>) => alertsConfigFrom(loadConfig(alertsEnvSchema, env));

describe('alerts configuration', () => {
  it('defaults: rates fresh for 60 minutes, jobs on, the old generation grows by 300 % between full collections', () => {
    const c = load({});
    expect(c).toMatchObject({ maxRateAgeMs: 3_600_000, entitlementsTtlMs: 30_000, jobsEnabled: true, heapGrowingPercent: 300, notificationsPerUser: 500 });
    expect(c.databaseUrl).toMatch(/\/invest_alerts$/);
  });

  it('reads the heap growth, 0 leaving V8 its own', () => {
    expect(load({ ALERTS_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(load({ ALERTS_HEAP_GROWING_PERCENT: '150' }).heapGrowingPercent).toBe(150);
  });

  it('reads the per-user limit and names a bad one', () => {
    expect(load({ ALERTS_MAX_PER_USER: '20' }).notificationsPerUser).toBe(20);
    for (const v of ['0', '-5', 'many', '2.5']) expect(() => load({ ALERTS_MAX_PER_USER: v }), v).toThrow(/ALERTS_MAX_PER_USER/);
  });

  it.each(['-1', '1001', 'lots', '2.5'])('names a bad ALERTS_HEAP_GROWING_PERCENT (%s)', (v) => {
    expect(() => load({ ALERTS_HEAP_GROWING_PERCENT: v })).toThrow(/ALERTS_HEAP_GROWING_PERCENT/);
  });
});
