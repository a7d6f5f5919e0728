/**
 * The web client at `/`: built files served from memory with the right caching, the SPA fallback that leaves the
 * API alone, and the development-only routes the client's sign-in form and payment widget stand-in use (absent in
 * production). A small stand-in build in a temp folder keeps this independent of `web/dist`.
 */
import { get, type IncomingHttpHeaders } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startFakeCloudPayments, type FakeCloudPayments } from '@invest/billing/testing/fake-cloudpayments';
import { createLogger } from '@invest/platform';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';

const SECRET = 'web-client-test-secret-0123456789-abcdef';
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

let dist: string;
let gw: GatewayApp;
let base: string;
let prod: GatewayApp;
let prodBase: string;
let provider: FakeCloudPayments;

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'web-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets', 'app-Ab12Cd34.js'), SCRIPT);
  // What scripts/build-web.mjs writes beside each compressible file.
  writeFileSync(join(dist, 'assets', 'app-Ab12Cd34.js.gz'), gzipSync(SCRIPT));
  provider = await startFakeCloudPayments({ publicId: 'pk_test_web', apiSecret: 'web-client-cp-secret', prices: { 'basic-m': '299.00' } });
  const common = { natsUrl: testNatsUrl(), readyServices: [], auth: { jwtSecret: SECRET }, webDistDir: dist, logger: createLogger('gateway', 'warn') };
  gw = await createGatewayApp({ ...common, busPrefix: `${uniqueName('gwweb')}.`, payments: { publicId: 'pk_test_web', widgetUrl: provider.widgetUrl } });
  base = await gw.listen(0, '127.0.0.1');
  prod = await createGatewayApp({ ...common, busPrefix: `${uniqueName('gwwebprod')}.`, devRoutes: false, payments: { publicId: 'pk_live_web' } });
  prodBase = await prod.listen(0, '127.0.0.1');
});

function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

afterAll(async () => {
  await Promise.all([gw?.close(), prod?.close(), provider?.close()]);
  rmSync(dist, { recursive: true, force: true });
});

describe('serving the built client', () => {
  it('serves index.html at / for revalidation on every visit, with the page security headers', async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await res.text()).toBe(INDEX);
    const again = await fetch(`${base}/`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('answers client routes with index.html so a reload or a shared link opens the screen', async () => {
    for (const path of ['/portfolios/5', '/chat/8c1e2a34-0d5f-4a7e-9a57-1d8e3c7b9f00', '/?sort=dividend_yield&direction=asc']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe(INDEX);
    }
  });

  it('caches hashed assets for a year and sends the prebuilt gzip copy when accepted', async () => {
    // node:http, not fetch: fetch would undo the encoding this checks.
    const zipped = await rawGet(`${base}/assets/app-Ab12Cd34.js`, { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zipped.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(zipped.body).toString()).toBe(SCRIPT);

    const plain = await fetch(`${base}/assets/app-Ab12Cd34.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(SCRIPT);
  });

  it('leaves the API, probes and missing files to the API: JSON 404s, never the page', async () => {
    for (const path of ['/api/nothing-here', '/assets/app-Old00000.js', '/favicon.ico']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ message: 'Not Found.' });
    }
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
  });

  it('serves the API only when there is no build', async () => {
    const bare = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix: `${uniqueName('gwwebbare')}.`, readyServices: [], webDistDir: join(dist, 'missing'), logger: createLogger('gateway', 'warn') });
    try {
      const url = await bare.listen(0, '127.0.0.1');
      expect((await fetch(`${url}/`)).status).toBe(404);
      expect((await fetch(`${url}/health`)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('development routes', () => {
  it('mints a token the gateway accepts, and says which field is wrong', async () => {
    const res = await fetch(`${base}/api/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: 'web-user-1' }) });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { token: string; user_id: string; expires_in: number } };
    expect(data).toMatchObject({ user_id: 'web-user-1', expires_in: 12 * 3600 });
    const payload = JSON.parse(Buffer.from(data.token.split('.')[1]!, 'base64url').toString()) as { sub: string };
    expect(payload.sub).toBe('web-user-1');

    const bad = await fetch(`${base}/api/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: ' padded ' }) });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Record<string, string[]> }).errors).toHaveProperty('user_id');
  });

  it('tells the client the public id, the payment widget script and whether development routes exist; the page may load that script', async () => {
    expect(await (await fetch(`${base}/api/client-config`)).json()).toEqual({ data: { cloudpayments_public_id: 'pk_test_web', payment_widget_url: provider.widgetUrl, dev_routes: true } });
    expect(await (await fetch(`${prodBase}/api/client-config`)).json()).toEqual({
      data: { cloudpayments_public_id: 'pk_live_web', payment_widget_url: 'https://widget.cloudpayments.ru/bundles/cloudpayments.js', dev_routes: false },
    });
    // The widget's origin, and no other, beside the page's own: its script, its frames, its requests.
    const csp = (await fetch(`${prodBase}/`)).headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self' https://widget.cloudpayments.ru;");
    expect(csp).toContain("frame-src 'self' https://widget.cloudpayments.ru;");
    expect(csp).toContain("connect-src 'self' https://widget.cloudpayments.ru;");
    expect((await fetch(`${base}/`)).headers.get('content-security-policy')).toContain(`script-src 'self' ${new URL(provider.widgetUrl).origin};`);
    // The local provider's widget speaks the provider's script API.
    const script = await fetch(provider.widgetUrl);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(await script.text()).toMatch(/window\.cp = \{ CloudPayments: CloudPayments \}/);
  });

  it('does not exist in production', async () => {
    const res = await fetch(`${prodBase}/api/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user_id":"x"}' });
    expect(res.status).toBe(404);
  });
});
