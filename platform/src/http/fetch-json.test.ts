import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchJson, ProviderError } from './fetch-json.js';

describe('fetchJson', () => {
  let server: Server;
  let base: string;
  const hits = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const n = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, n);
      if (req.url === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>blocked</html>');
      } else if (req.url === '/throttled-once') {
        if (n === 1) res.writeHead(429, { 'retry-after': '0' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } else if (req.url === '/always-403') {
        res.writeHead(403).end('too many requests');
      } else if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 500);
      } else if (req.url === '/404') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"ok":1}');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('returns parsed JSON', async () => {
    expect(await fetchJson(`${base}/ok`, { provider: 'p' })).toEqual({ ok: 1 });
  });

  it('says clearly when a 200 answer is HTML, without retrying', async () => {
    const err = await fetchJson(`${base}/html`, { provider: 'moex', backoffMs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).reason).toBe('not_json');
    expect(hits.get('/html')).toBe(1);
  });

  it('backs off and retries after throttling', async () => {
    expect(await fetchJson(`${base}/throttled-once`, { provider: 'p', backoffMs: 1 })).toEqual({ ok: true });
    expect(hits.get('/throttled-once')).toBe(2);
  });

  it('gives up after the configured retries', async () => {
    const err = (await fetchJson(`${base}/always-403`, { provider: 'p', retries: 2, backoffMs: 1 }).catch((e: unknown) => e)) as ProviderError;
    expect(err.reason).toBe('throttled');
    expect(hits.get('/always-403')).toBe(3);
  });

  it('times out a slow provider and does not retry a 404', async () => {
    const slow = (await fetchJson(`${base}/slow`, { provider: 'p', timeoutMs: 50, retries: 0 }).catch((e: unknown) => e)) as ProviderError;
    expect(slow.reason).toBe('timeout');
    const missing = (await fetchJson(`${base}/404`, { provider: 'p', backoffMs: 1 }).catch((e: unknown) => e)) as ProviderError;
    expect([missing.reason, missing.status, hits.get('/404')]).toEqual(['http', 404, 1]);
  });
});
