/**
 * The reproduction: the portfolios service runs as its own process (its main, from source) and is
 * paused with SIGSTOP while a deal is posted. The gateway answers 503
 * (outcome unknown); when the process resumes it reads the request after its deadline and must not book it,
 * so a retry without `Idempotency-Key` books the deal once. The gateway and screener run in this process.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { connectBus, createLogger, streamNameOf } from '@invest/platform';
import { createTestDatabase, spawnSourceMain, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createScreenerApp, type ScreenerApp } from '@invest/screener/screener.app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '../src/auth/dev-token.js';
import { createGatewayApp, type GatewayApp } from '../src/gateway.app.js';

const portfoliosMain = fileURLToPath(new URL('../../portfolios/src/main.ts', import.meta.url));
const SECRET = 'paused-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const RPC_TIMEOUT_MS = 1500;

describe('a paused service (SIGSTOP)', () => {
  const busPrefix = `${uniqueName('gwps')}.`;
  const logger = createLogger('test', 'silent');
  let child: ChildProcess | undefined;
  const output: string[] = [];
  let screener: ScreenerApp;
  let gw: GatewayApp;
  let base: string;
  let token: string;
  const drops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const scrDb = await createTestDatabase('gwps_scr');
    const pfDb = await createTestDatabase('gwps');
    drops.push(scrDb.drop, pfDb.drop);
    screener = await createScreenerApp({ databaseUrl: scrDb.url, natsUrl: testNatsUrl(), busPrefix, logger, loadDemoData: false, relayPollMs: 50 });
    child = spawnSourceMain(portfoliosMain, { PORTFOLIOS_DATABASE_URL: pfDb.url, NATS_URL: testNatsUrl(), BUS_PREFIX: busPrefix, LOG_LEVEL: 'warn', NODE_ENV: 'test' });
    for (const s of [child.stdout, child.stderr]) s?.on('data', (b: Buffer) => output.push(b.toString()));
    gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix, logger, auth: { jwtSecret: SECRET }, rpcTimeoutMs: RPC_TIMEOUT_MS, readyServices: ['screener', 'portfolios'] });
    base = await gw.listen(0, '127.0.0.1');
    token = await mintDevToken(ALICE, SECRET);
    for (const end = Date.now() + 45_000; (await fetch(new URL('/ready', base))).status !== 200; ) {
      if (Date.now() > end) throw new Error(`the portfolios process did not become ready:\n${output.join('')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGCONT');
      await new Promise<void>((resolve) => {
        child!.once('exit', () => resolve());
        child!.kill('SIGTERM');
        setTimeout(() => child!.kill('SIGKILL'), 5000).unref();
      });
    }
    await gw?.close();
    await screener?.close();
    const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'gwps-cleanup', prefix: busPrefix });
    for (const ctx of ['portfolios', 'market'] as const) await bus.jsm.streams.delete(streamNameOf(bus, ctx)).catch(() => undefined);
    await bus.close();
    for (const drop of drops) await drop();
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(new URL(path, base), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  it('a deal POST answered 503 while the process is stopped is not booked when it resumes; a retry books it once', async () => {
    const asset = await api('POST', '/api/custom-assets', { name: 'Flat', currency: 'RUB', price: 100 });
    expect(asset.status).toBe(201);
    const p = await api('POST', '/api/portfolios', { name: 'Paused', currency_code: 'RUB' });
    expect(p.status, output.join('')).toBe(201);
    const id = p.body.data.id as number;
    const deal = { type: 'buy', assetable: { type: 'custom_asset', id: asset.body.data.id }, quantity: 1, price: 100, commission: 0, date: '2024-01-10' };

    child!.kill('SIGSTOP');
    let lost;
    try {
      lost = await api('POST', `/api/portfolios/${id}/deals`, deal);
    } finally {
      child!.kill('SIGCONT');
    }
    expect(lost.status).toBe(503);
    expect(lost.body.outcome).toBe('unknown');

    // The resumed process first reads the late request (and refuses it), then the retry.
    const retry = await api('POST', `/api/portfolios/${id}/deals`, deal);
    expect(retry.status).toBe(201);
    const deals = await api('GET', `/api/portfolios/${id}/deals`);
    expect(deals.body.data.map((d: { id: number }) => d.id)).toEqual([retry.body.data.id]);
    await expect.poll(() => output.join(''), { timeout: 5000 }).toMatch(/rpc deadline passed before start; not started/);
  });
});
