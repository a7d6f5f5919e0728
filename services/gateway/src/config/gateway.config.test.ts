import { ConfigError } from '@invest/platform/config/load-config';
import { describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET, loadGatewayConfig } from './gateway.config.js';

const issues = (env: Record<string, string>): string[] => {
  try {
    loadGatewayConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
};

describe('gateway config', () => {
  it('defaults', () => {
    const c = loadGatewayConfig({});
    expect(c).toMatchObject({
      port: 3000,
      busPrefix: '',
      rpcTimeoutMs: 3000,
      readyServices: ['screener', 'portfolios'],
      natsUrl: 'nats://127.0.0.1:4222',
      logLevel: 'info',
      auth: { jwtSecret: DEV_JWT_SECRET },
    });
    expect(c.publicBaseUrl).toBeUndefined();
  });

  it('reads every variable', () => {
    const c = loadGatewayConfig({
      PORT: '8080',
      AUTH_JWT_SECRET: 's'.repeat(40),
      AUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
      RPC_TIMEOUT_MS: '1500',
      READY_SERVICES: ' screener, alerts ,billing',
      NATS_URL: 'nats://nats:4222',
      BUS_PREFIX: 'staging.',
      LOG_LEVEL: 'warn',
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    expect(c).toMatchObject({
      port: 8080,
      auth: { jwtSecret: 's'.repeat(40), jwksUrl: 'https://id.example.com/.well-known/jwks.json' },
      rpcTimeoutMs: 1500,
      readyServices: ['screener', 'alerts', 'billing'],
      natsUrl: 'nats://nats:4222',
      busPrefix: 'staging.',
      logLevel: 'warn',
      publicBaseUrl: 'https://api.example.com',
    });
  });

  it('names the variable of each bad value', () => {
    expect(issues({ PORT: 'eighty' })[0]).toMatch(/^PORT: /);
    expect(issues({ PORT: '70000' })[0]).toMatch(/^PORT: /);
    expect(issues({ RPC_TIMEOUT_MS: '-1' })[0]).toMatch(/^RPC_TIMEOUT_MS: /);
    expect(issues({ AUTH_JWT_SECRET: 'short' })[0]).toMatch(/^AUTH_JWT_SECRET: /);
    expect(issues({ AUTH_JWKS_URL: 'not a url' })[0]).toMatch(/^AUTH_JWKS_URL: /);
    expect(issues({ READY_SERVICES: 'screener,Bad Name' })[0]).toMatch(/^READY_SERVICES/);
    expect(issues({ LOG_LEVEL: 'loud' })[0]).toMatch(/^LOG_LEVEL: /);
  });

  it('listens on loopback by default outside production, on every interface in production', () => {
    expect(loadGatewayConfig({}).host).toBe('127.0.0.1');
    expect(loadGatewayConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadGatewayConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: 's'.repeat(40) }).host).toBe('0.0.0.0');
    expect(loadGatewayConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('public screener cache: defaults, overrides, 0 turns it off, bounds must be positive', () => {
    expect(loadGatewayConfig({}).publicScreenerCache).toEqual({ ttlMs: 10_000, maxEntries: 1000, maxBytes: 32 * 1024 * 1024 });
    expect(
      loadGatewayConfig({ SCREENER_PUBLIC_CACHE_TTL_MS: '0', SCREENER_PUBLIC_CACHE_MAX_ENTRIES: '10', SCREENER_PUBLIC_CACHE_MAX_BYTES: '4096' }).publicScreenerCache,
    ).toEqual({ ttlMs: 0, maxEntries: 10, maxBytes: 4096 });
    expect(issues({ SCREENER_PUBLIC_CACHE_TTL_MS: '-1' })[0]).toMatch(/^SCREENER_PUBLIC_CACHE_TTL_MS: /);
    expect(issues({ SCREENER_PUBLIC_CACHE_MAX_ENTRIES: '0' })[0]).toMatch(/^SCREENER_PUBLIC_CACHE_MAX_ENTRIES: /);
    expect(issues({ SCREENER_PUBLIC_CACHE_MAX_BYTES: 'lots' })[0]).toMatch(/^SCREENER_PUBLIC_CACHE_MAX_BYTES: /);
  });

  it('live answer streams per user: 10 by default, CHAT_STREAM_MAX_PER_USER overrides, a bad value is named', () => {
    expect(loadGatewayConfig({}).chatStreamMaxPerUser).toBe(10);
    expect(loadGatewayConfig({ CHAT_STREAM_MAX_PER_USER: '3' }).chatStreamMaxPerUser).toBe(3);
    expect(issues({ CHAT_STREAM_MAX_PER_USER: '0' })[0]).toMatch(/^CHAT_STREAM_MAX_PER_USER: /);
  });

  it('HTTP server limits: defaults, overrides, and a headers timeout within the request timeout', () => {
    expect(loadGatewayConfig({}).http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_000 });
    expect(
      loadGatewayConfig({ HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '4000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', HTTP_MAX_CONNECTIONS: '50' }).http,
    ).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, maxConnections: 50 });
    expect(issues({ HTTP_MAX_CONNECTIONS: '0' })[0]).toMatch(/^HTTP_MAX_CONNECTIONS: /);
    expect(issues({ HTTP_REQUEST_TIMEOUT_MS: 'soon' })[0]).toMatch(/^HTTP_REQUEST_TIMEOUT_MS: /);
    expect(issues({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' })).toEqual(['HTTP_HEADERS_TIMEOUT_MS: must not be greater than HTTP_REQUEST_TIMEOUT_MS']);
  });

  it('production needs a real secret or a JWKS', () => {
    expect(issues({ NODE_ENV: 'production' })).toEqual(['AUTH_JWT_SECRET: is required in production unless AUTH_JWKS_URL is set']);
    expect(issues({ NODE_ENV: 'production', AUTH_JWT_SECRET: DEV_JWT_SECRET })[0]).toMatch(/^AUTH_JWT_SECRET: must not be the development default/);
    const jwksOnly = loadGatewayConfig({ NODE_ENV: 'production', AUTH_JWKS_URL: 'https://id.example.com/jwks' });
    expect(jwksOnly.auth).toEqual({ jwksUrl: 'https://id.example.com/jwks', maxTokenTtlS: 30 * 86_400 });
  });

  it('the payment widget script is the provider\'s by default, and https in production', () => {
    expect(loadGatewayConfig({}).payments.widgetUrl).toBe('https://widget.cloudpayments.ru/bundles/cloudpayments.js');
    expect(loadGatewayConfig({ CLOUDPAYMENTS_WIDGET_URL: 'http://127.0.0.1:9/widget.js' }).payments.widgetUrl).toBe('http://127.0.0.1:9/widget.js');
    expect(issues({ NODE_ENV: 'production', AUTH_JWT_SECRET: 's'.repeat(40), CLOUDPAYMENTS_WIDGET_URL: 'http://cdn.example.com/w.js' })).toEqual([
      'CLOUDPAYMENTS_WIDGET_URL: must be an https URL in production',
    ]);
  });

  it('outside production, a JWKS-only setup does not silently accept the development secret', () => {
    expect(loadGatewayConfig({ AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks' }).auth).toEqual({ jwksUrl: 'http://127.0.0.1:9/jwks', maxTokenTtlS: 30 * 86_400 });
  });

  it('AUTH_ISSUER and AUTH_AUDIENCE: passed on when set, refused when empty', () => {
    expect(loadGatewayConfig({ AUTH_ISSUER: 'https://id.example.com/', AUTH_AUDIENCE: 'invest-tracker' }).auth).toMatchObject({ issuer: 'https://id.example.com/', audience: 'invest-tracker' });
    expect(loadGatewayConfig({}).auth).not.toHaveProperty('audience');
    expect(issues({ AUTH_AUDIENCE: ' ' })[0]).toMatch(/^AUTH_AUDIENCE: /);
  });

  it('AUTH_MAX_TOKEN_TTL: 30 days by default, seconds or a duration, refused when not positive', () => {
    expect(loadGatewayConfig({}).auth.maxTokenTtlS).toBe(30 * 86_400);
    expect(loadGatewayConfig({ AUTH_MAX_TOKEN_TTL: '3600' }).auth.maxTokenTtlS).toBe(3600);
    expect(loadGatewayConfig({ AUTH_MAX_TOKEN_TTL: '12h' }).auth.maxTokenTtlS).toBe(12 * 3600);
    expect(loadGatewayConfig({ AUTH_MAX_TOKEN_TTL: '2w' }).auth.maxTokenTtlS).toBe(14 * 86_400);
    for (const bad of ['0', '-1', '1.5d', 'forever', '30 days']) {
      expect(issues({ AUTH_MAX_TOKEN_TTL: bad })[0], bad).toMatch(/^AUTH_MAX_TOKEN_TTL: /);
    }
  });
});
