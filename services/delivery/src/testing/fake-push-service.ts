import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import selfsigned from 'selfsigned';
import { DEVELOPMENT_PUSH_CONFIG, type PushConfig } from '../push/push.config.js';

// http_ece is CommonJS without types: the one call the stand-in makes, typed here.
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer }): Buffer;
};

/** A browser's subscription as `PushSubscription.toJSON()` gives it. */
export interface SubscriptionJson {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** A synthetic browser: the subscription it would post, and the private half of its keys, kept here to decrypt with. */
export interface FakePushDevice {
  id: string;
  /** Who registered it through the page (for the page only). */
  userId?: string;
  /** The VAPID public key it subscribed with: only messages signed by it are accepted (RFC 8292 §4). */
  applicationServerKey: string;
  subscription: SubscriptionJson;
  /** 404 or 410 from now on: the browser dropped the subscription. */
  goneWith?: 404 | 410;
}

/** A message accepted for a device (201), decrypted. */
export interface ReceivedPush {
  id: number;
  deviceId: string;
  receivedAt: Date;
  ttl: number;
  urgency: string;
  topic?: string;
  /** The decrypted plaintext. */
  text: string;
  /** The plaintext as JSON, when it is. */
  json?: unknown;
  /** The VAPID JWT's claims (checked). */
  vapid: { aud: string; exp: number; sub?: string };
}

/** A request refused: what a push service would have answered, and why. */
export interface RejectedPush {
  deviceId: string;
  status: number;
  reason: string;
}

export interface FakePushServiceOptions {
  /** Where the page registers devices: the gateway (`/api/dev/token`, `/api/push-subscriptions`). */
  gatewayUrl?: string;
  host?: string;
}

export interface FakePushService {
  /** The HTTPS origin push endpoints are under, e.g. `https://127.0.0.1:41234`. */
  url: string;
  /** The page (plain HTTP, no certificate warning) listing devices and what they received. */
  pageUrl: string;
  /** The self-signed certificate to trust (PEM): `WEB_PUSH_TEST_CA`. */
  ca: string;
  /** A new synthetic browser subscribed with `applicationServerKey` (the server's VAPID public key). */
  createDevice(opts: { applicationServerKey: string; userId?: string }): FakePushDevice;
  /** The device's subscription is gone: every message from now on gets `status` (404 or 410). */
  expire(deviceId: string, status?: 404 | 410): void;
  /** The next `times` messages for the device get `status` with `headers` (a 429 with Retry-After, a 503). */
  failNext(deviceId: string, status: number, opts?: { times?: number; headers?: Record<string, string> }): void;
  /** Messages accepted, oldest first (of one device when given). */
  received(deviceId?: string): ReceivedPush[];
  /** Requests refused, oldest first. */
  rejected(): RejectedPush[];
  /** Where the page registers devices, when it was not known at start (a test's gateway starts after the push service). */
  setGatewayUrl(url: string): void;
  close(): Promise<void>;
}

/** Delivery's push configuration for a test against this push service: keys generated once, its certificate trusted. */
export function pushConfigTrusting(fake: FakePushService): PushConfig {
  return { ...DEVELOPMENT_PUSH_CONFIG, testCa: fake.ca };
}

/** RFC 8030 §7.2: a push service must accept 4096 bytes of body; more is a 413. */
const MAX_BODY = 4096;
const URGENCIES = ['very-low', 'low', 'normal', 'high'];

class PushRefused extends Error {
  constructor(
    readonly status: number,
    reason: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }
}

/**
 * A local push service (RFC 8030) for tests and `npm start`: HTTPS on 127.0.0.1 with a self-signed certificate
 * (web-push sends over https only), `POST /push/<id>` checked as a real one checks it (TTL, Urgency, Topic,
 * Content-Encoding aes128gcm, VAPID JWT audience, expiry, signature and key, body size), the body decrypted with the
 * private key of the synthetic browser it created (http_ece, RFC 8291), kept, and answered 201 with a Location.
 * A page over plain HTTP shows it all and can register a synthetic browser for a user through the gateway.
 */
export async function startFakePushService(opts: FakePushServiceOptions = {}): Promise<FakePushService> {
  const host = opts.host ?? '127.0.0.1';
  const pems = await selfsigned.generate([{ name: 'commonName', value: host }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 30 * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });

  const devices = new Map<string, FakePushDevice & { ecdh: ECDH; auth: Buffer }>();
  const failures = new Map<string, { status: number; times: number; headers: Record<string, string> }>();
  const received: ReceivedPush[] = [];
  const rejected: RejectedPush[] = [];
  let nextMessage = 1;
  let origin = '';
  let pageOrigin = '';
  let gatewayUrl = opts.gatewayUrl;

  const createDevice = ({ applicationServerKey, userId }: { applicationServerKey: string; userId?: string }): FakePushDevice => {
    // RFC 8030 §8: at least 120 random bits in the endpoint; 128 here.
    const id = randomBytes(16).toString('base64url');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const device = {
      id,
      ...(userId ? { userId } : {}),
      applicationServerKey,
      subscription: { endpoint: `${origin}/push/${id}`, expirationTime: null, keys: { p256dh: ecdh.getPublicKey('base64url'), auth: auth.toString('base64url') } },
      ecdh,
      auth,
    };
    devices.set(id, device);
    return publicDevice(device);
  };

  const accept = (deviceId: string, req: IncomingMessage, body: Buffer): ReceivedPush => {
    const device = devices.get(deviceId);
    if (!device) throw new PushRefused(404, 'no such subscription');
    if (device.goneWith) throw new PushRefused(device.goneWith, 'the subscription is no longer valid');
    const ttl = single(req, 'ttl');
    if (ttl === undefined || !/^\d+$/.test(ttl)) throw new PushRefused(400, 'TTL header missing or not a non-negative integer');
    const urgency = single(req, 'urgency') ?? 'normal';
    if (!URGENCIES.includes(urgency)) throw new PushRefused(400, `bad Urgency: ${urgency}`);
    const topic = single(req, 'topic');
    if (topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) throw new PushRefused(400, 'bad Topic');
    if (single(req, 'content-encoding') !== 'aes128gcm') throw new PushRefused(400, 'Content-Encoding must be aes128gcm');
    const vapid = checkVapid(req.headers.authorization, origin, device.applicationServerKey);
    if (body.length > MAX_BODY) throw new PushRefused(413, `body of ${body.length} bytes is over ${MAX_BODY}`);
    const scripted = failures.get(deviceId);
    if (scripted && scripted.times > 0) {
      scripted.times -= 1;
      throw new PushRefused(scripted.status, 'scripted failure', scripted.headers);
    }
    let text: string;
    try {
      text = ece.decrypt(body, { version: 'aes128gcm', privateKey: device.ecdh, authSecret: device.auth }).toString('utf8');
    } catch (err) {
      throw new PushRefused(400, `cannot decrypt: ${(err as Error).message}`);
    }
    const message: ReceivedPush = { id: nextMessage++, deviceId, receivedAt: new Date(), ttl: Number(ttl), urgency, ...(topic ? { topic } : {}), text, vapid };
    try {
      message.json = JSON.parse(text);
    } catch {
      /* plain text is a valid payload too */
    }
    received.push(message);
    return message;
  };

  const push = createHttpsServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const match = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '');
    if (!match || req.method !== 'POST') return json(res, 404, { code: 404, errno: 102, error: 'Not Found', message: 'No such endpoint' });
    const deviceId = match[1]!;
    readBody(req, MAX_BODY * 4)
      .then((body) => {
        const message = accept(deviceId, req, body);
        res.writeHead(201, { location: `${origin}/m/${message.id}`, ttl: String(message.ttl) }).end();
      })
      .catch((err: unknown) => {
        const status = err instanceof PushRefused ? err.status : 400;
        const reason = err instanceof Error ? err.message : String(err);
        rejected.push({ deviceId, status, reason });
        json(res, status, { code: status, errno: status === 410 ? 106 : 999, error: reason, more_info: 'local push service' }, err instanceof PushRefused ? err.headers : {});
      });
  });

  const page = createHttpServer((req, res) => {
    handlePage(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(String(err));
    });
  });

  async function handlePage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', pageOrigin);
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(renderPage(url.searchParams.get('error')));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/messages.json') {
      json(res, 200, { devices: [...devices.values()].map(publicDevice), received, rejected });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/devices') {
      // A page on another site must not make this one register devices.
      const from = req.headers.origin;
      if (from !== undefined && from !== pageOrigin) return json(res, 403, { error: 'cross-site request' });
      const form = new URLSearchParams((await readBody(req, 4096)).toString('utf8'));
      const userId = (form.get('user_id') ?? '').trim();
      let error = '';
      try {
        if (!userId) throw new Error('a user id is required');
        await registerThroughGateway(userId);
      } catch (err) {
        error = (err as Error).message;
      }
      res.writeHead(303, { location: error ? `/?error=${encodeURIComponent(error)}` : '/' }).end();
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  /** What a browser does when a user turns web push on: the key, a subscription, the POST (with a development token). */
  async function registerThroughGateway(userId: string): Promise<void> {
    const gw = gatewayUrl;
    if (!gw) throw new Error('no gateway URL was given to the push service');
    const tokenRes = await fetch(`${gw}/api/dev/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: userId }) });
    if (!tokenRes.ok) throw new Error(`POST /api/dev/token: ${tokenRes.status} ${await tokenRes.text()}`);
    const { data } = (await tokenRes.json()) as { data: { token: string } };
    const authorization = `Bearer ${data.token}`;
    const keyRes = await fetch(`${gw}/api/push-subscriptions/key`, { headers: { authorization } });
    if (!keyRes.ok) throw new Error(`GET /api/push-subscriptions/key: ${keyRes.status} ${await keyRes.text()}`);
    const key = ((await keyRes.json()) as { data: { public_key: string } }).data.public_key;
    const device = createDevice({ applicationServerKey: key, userId });
    const subRes = await fetch(`${gw}/api/push-subscriptions`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(device.subscription) });
    if (!subRes.ok) {
      devices.delete(device.id);
      throw new Error(`POST /api/push-subscriptions: ${subRes.status} ${await subRes.text()}`);
    }
  }

  function renderPage(error: string | null): string {
    const rows = [...received].reverse().slice(0, 100).map((m) => {
      const device = devices.get(m.deviceId);
      const p = (m.json ?? {}) as { title?: unknown; body?: unknown; url?: unknown; tag?: unknown };
      return `<tr><td>${esc(m.receivedAt.toISOString())}</td><td>${esc(device?.userId ?? '')}<br><small>${esc(m.deviceId.slice(0, 8))}…</small></td>
        <td><b>${esc(String(p.title ?? ''))}</b><pre>${esc(String(p.body ?? m.text))}</pre>${p.url ? `<a href="${esc(String(p.url))}">${esc(String(p.url))}</a>` : ''}</td>
        <td>TTL ${m.ttl}<br>${esc(m.urgency)}<br><small>tag ${esc(String(p.tag ?? ''))}</small></td></tr>`;
    });
    const deviceRows = [...devices.values()].map(
      (d) => `<li>${esc(d.userId ?? '(test)')}: <code>${esc(d.id.slice(0, 8))}…</code>${d.goneWith ? ` gone (${d.goneWith})` : ''}, ${received.filter((m) => m.deviceId === d.id).length} received</li>`,
    );
    const refused = rejected.slice(-20).reverse().map((r) => `<li>${r.status} <code>${esc(r.deviceId.slice(0, 8))}…</code>: ${esc(r.reason)}</li>`);
    return `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>Локальный push-сервис</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;width:100%}td{border-top:1px solid #ddd;padding:.4em;vertical-align:top}pre{white-space:pre-wrap;margin:.3em 0}.error{color:#b00}</style></head><body>
<h1>Локальный push-сервис <small>(local Web Push service)</small></h1>
<p>Push endpoints: <code>${esc(origin)}/push/&lt;id&gt;</code>. Сообщения расшифрованы ключом синтетического браузера / messages decrypted with the synthetic browser's key.</p>
${error ? `<p class="error">${esc(error)}</p>` : ''}
<form method="post" action="/devices"><label>ID пользователя / user id <input name="user_id" required></label>
<button>Подписать синтетический браузер / subscribe a synthetic browser</button></form>
<p><small>Получает токен разработки (POST /api/dev/token), ключ VAPID и отправляет подписку в POST /api/push-subscriptions, как браузер.
Gets a development token, the VAPID key and posts the subscription, as a browser would.</small></p>
<h2>Устройства / devices</h2><ul>${deviceRows.join('') || '<li>нет / none</li>'}</ul>
<h2>Получено / received <a href="/">⟳</a></h2>
<table><tr><th>when</th><th>user</th><th>message</th><th></th></tr>${rows.join('') || '<tr><td colspan="4">ничего / nothing yet</td></tr>'}</table>
<h2>Отклонено / refused</h2><ul>${refused.join('') || '<li>нет / none</li>'}</ul></body></html>`;
  }

  await listen(push, host);
  await listen(page, host);
  origin = `https://${host}:${(push.address() as AddressInfo).port}`;
  pageOrigin = `http://${host}:${(page.address() as AddressInfo).port}`;

  return {
    url: origin,
    pageUrl: pageOrigin,
    ca: pems.cert,
    createDevice,
    expire(deviceId, status = 410) {
      const d = devices.get(deviceId);
      if (!d) throw new Error(`no device ${deviceId}`);
      d.goneWith = status;
    },
    failNext(deviceId, status, o = {}) {
      failures.set(deviceId, { status, times: o.times ?? 1, headers: o.headers ?? {} });
    },
    received: (deviceId) => received.filter((m) => deviceId === undefined || m.deviceId === deviceId),
    rejected: () => [...rejected],
    setGatewayUrl(url) {
      gatewayUrl = url.replace(/\/+$/, '');
    },
    async close() {
      await Promise.all([close(push), close(page)]);
    },
  };
}

/**
 * RFC 8292: `Authorization: vapid t=<JWT>, k=<key>`. No header is a 401; a malformed token, a bad signature, an
 * audience other than this origin, an `exp` past or more than 24 h away, or a key other than the one the browser
 * subscribed with is a 403.
 */
export function checkVapid(header: string | undefined, origin: string, applicationServerKey: string, now = Date.now()): ReceivedPush['vapid'] {
  if (!header) throw new PushRefused(401, 'no VAPID Authorization');
  const m = /^vapid\s+(.+)$/i.exec(header.trim());
  if (!m) throw new PushRefused(401, 'Authorization is not the vapid scheme');
  const params = Object.fromEntries(
    m[1]!.split(',').map((part) => {
      const i = part.indexOf('=');
      return [part.slice(0, i).trim().toLowerCase(), part.slice(i + 1).trim()];
    }),
  );
  const { t, k } = params as { t?: string; k?: string };
  if (!t || !k) throw new PushRefused(401, 'vapid needs t= and k=');
  if (k !== applicationServerKey) throw new PushRefused(403, 'k is not the key the subscription was made with');
  const [h, p, s] = t.split('.');
  if (!h || !p || !s) throw new PushRefused(403, 'the token is not a JWT');
  let header_: { alg?: unknown };
  let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
  try {
    header_ = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header_;
    claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as typeof claims;
  } catch {
    throw new PushRefused(403, 'the token is not JSON');
  }
  if (header_.alg !== 'ES256') throw new PushRefused(403, 'alg must be ES256');
  const key = Buffer.from(k, 'base64url');
  if (key.length !== 65 || key[0] !== 4) throw new PushRefused(403, 'k is not a P-256 public key');
  const jwk = { kty: 'EC', crv: 'P-256', x: key.subarray(1, 33).toString('base64url'), y: key.subarray(33).toString('base64url') };
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new PushRefused(403, 'bad signature');
  if (claims.aud !== origin) throw new PushRefused(403, `aud ${String(claims.aud)} is not ${origin}`);
  const nowS = Math.floor(now / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= nowS) throw new PushRefused(403, 'the token has expired');
  if (claims.exp - nowS > 24 * 3600) throw new PushRefused(403, 'exp is more than 24 hours away');
  return { aud: claims.aud, exp: claims.exp, ...(typeof claims.sub === 'string' ? { sub: claims.sub } : {}) };
}

function publicDevice(d: FakePushDevice): FakePushDevice {
  return {
    id: d.id,
    ...(d.userId ? { userId: d.userId } : {}),
    applicationServerKey: d.applicationServerKey,
    subscription: d.subscription,
    ...(d.goneWith ? { goneWith: d.goneWith } : {}),
  };
}

/** A header given exactly once; repeated (joined by Node with ", ") counts as bad. */
function single(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  if (v === undefined) return undefined;
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s.includes(',') ? `${s} (repeated)` : s.trim();
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => (size > limit ? reject(new PushRefused(413, `body over ${limit} bytes`)) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function listen(server: Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
