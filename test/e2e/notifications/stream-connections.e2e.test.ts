/**
 * The notification SSE stream's connection (gateway → alerts, on the real alerts stack): a client that leaves while
 * the stream opens leaves nothing running, and one that does not read makes the replay wait (found by an
 * adversarial test: the first kept polling the inbox for ever, the second queued ~40 MB for one client).
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { Subjects } from '@invest/contracts';
import { busSubject } from '@invest/platform';
import { eventually, eventuallyTruthy, holdOpen } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { looseBody } from '../support/gateway-api.js';
import { type AlertsStack, OPENING_RATES, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
async function api(method: string, path: string, opts: { user?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string; streamMs?: number } = {}): Promise<{ status: number; body: any; text: string; ctype: string | null }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.user) headers.authorization = `Bearer ${await stack.token(opts.user)}`;
  if (opts.body !== undefined || opts.rawBody !== undefined) headers['content-type'] = 'application/json';
  const ac = new AbortController();
  // A bound for a request that never answers, not a measure: the inbox page of 100 big firings is put together from
  // up to 99 replies, which take seconds on a loaded machine.
  const timer = setTimeout(() => ac.abort(), 30_000);
  try {
    const res = await fetch(new URL(path, stack.base), { method, headers, body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)), signal: ac.signal });
    const ctype = res.headers.get('content-type');
    if (ctype?.startsWith('text/event-stream')) {
      // Do not wait for a stream to end: read what came within a moment.
      const reader = res.body!.getReader();
      let text = '';
      const until = Date.now() + (opts.streamMs ?? 800);
      for (;;) {
        const left = until - Date.now();
        if (left <= 0) break;
        const r = await Promise.race([reader.read(), new Promise<undefined>((res) => setTimeout(() => res(undefined), left))]);
        if (!r || r.done) break;
        text += new TextDecoder().decode(r.value);
      }
      await reader.cancel().catch(() => undefined);
      return { status: res.status, body: undefined, text, ctype };
    }
    const text = await res.text();
    return { status: res.status, body: looseBody(text), text, ctype };
  } finally {
    clearTimeout(timer);
  }
}

const user = () => `sse-${randomUUID().slice(0, 8)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rates: AlertsStack['applyRates'] = (batch) => stack.applyRates(batch);

/** One real firing of a new user (a price target crossed); returns the user and the firing row id. */
async function userWithOneFiring(): Promise<{ u: string; firingId: number }> {
  const u = user();
  const res = await api('POST', '/api/price-alert', { user: u, body: { target_price: 150, assetable: { type: 'share', id: stack.shareIds.GAZP }, name: 'GAZP 150' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  stack.clock.now = new Date(stack.clock.now.getTime() + 1000);
  await rates([{ ticker: 'GAZP', rate: 149, change: 0 }]);
  const rows = await eventually(
    () => stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where user_id = $1', [u]),
    (r) => r.length === 1,
    'the firing',
  );
  stack.clock.now = new Date(stack.clock.now.getTime() + 1000);
  await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
  return { u, firingId: Number(rows[0]!.id) };
}

/** A raw HTTP/1.1 GET on a socket that is never read from. */
function rawGet(path: string, headers: Record<string, string>): Promise<Socket> {
  const url = new URL(stack.base);
  return new Promise((resolve, reject) => {
    const s = connect({ host: url.hostname, port: Number(url.port) }, () => {
      const lines = [`GET ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''];
      s.write(lines.join('\r\n'));
      resolve(s);
    });
    s.on('error', reject);
  });
}

beforeAll(async () => {
  stack = await startAlertsStack('gwsseconn', {
    tickers: ['SBER', 'GAZP'],
    // A short backstop poll so a stream that outlived its client shows up as inbox reads within the test.
    gateway: { notificationStream: { pollMs: 200, heartbeatMs: 300 } },
    openingRates: OPENING_RATES.filter((r) => r.ticker !== 'LKOH'),
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('connection handling', () => {
  it('a client that leaves while the stream is being opened leaves no stream behind (no inbox polling, no feed listener)', async () => {
    const u = user();
    const feed = stack.gw.feed;
    const listeners = (feed as unknown as { listeners: Map<string, Set<unknown>> }).listeners;
    let reads = 0;
    const sub = stack.bus.nc.subscribe(busSubject(stack.busPrefix, Subjects.alerts.notificationEventsList), {
      callback: (_e, m) => {
        const body = m.json<{ data?: { meta?: { userId?: string } } }>();
        if (body.data?.meta?.userId === u) reads++;
      },
    });
    await stack.bus.nc.flush();
    // The stream's reads go through the gateway's RPC client: the first one's answer is what the handler goes on from.
    const rpc = stack.gw.rpc;
    const requests = vi.spyOn(rpc, 'request');
    const server = stack.gw.app.getHttpServer() as Server;
    const sockets: Socket[] = [];
    const onConn = (sock: Socket) => sockets.push(sock);
    server.on('connection', onConn);
    let firstRead: unknown;
    // Hold the inbox table so the stream's first read (the newest firing id) waits; the client leaves meanwhile.
    const held = await holdOpen(stack.alerts.db, (tx) => tx.query('lock table notification_firings in access exclusive mode'));
    try {
      const s = await rawGet('/api/notification-events/stream', { authorization: `Bearer ${await stack.token(u)}` });
      await eventually(async () => reads, (n) => n >= 1, 'the first inbox read');
      const call = requests.mock.calls.findIndex((c) => c[0] === Subjects.alerts.notificationEventsList && (c[2] as { userId?: string } | undefined)?.userId === u);
      firstRead = requests.mock.results[call]?.value;
      const gatewaySide = await eventuallyTruthy(async () => sockets.find((x) => x.remotePort === s.localPort), "the connection's socket on the gateway");
      const gone = once(gatewaySide, 'close');
      s.destroy();
      // The gateway has seen the client leave (its request is closed) before the read is answered.
      await gone;
    } finally {
      server.off('connection', onConn);
      held.release();
      await held.done;
    }
    // The read is answered; the handler, waiting for it since before this test did, has gone on from it: a handler
    // that ran on after its client left has registered its feed listener (and its inbox poll, every 200 ms) by now.
    expect(firstRead, 'the stream read the inbox through the RPC client').toBeInstanceOf(Promise);
    await (firstRead as Promise<unknown>).catch(() => undefined);
    requests.mockRestore();
    sub.unsubscribe();
    expect({ listener: listeners.has(u), reads }).toEqual({ listener: false, reads: 1 });
  });

  it('a client that never reads does not make the gateway buffer the whole replay (backpressure)', async () => {
    const { u, firingId } = await userWithOneFiring();
    // 4,000 firings of ~8 KB each (about 32 MB of events, batches of ~0.8 MB): a long-offline client's catching up.
    await stack.alerts.db.query(
      `insert into notification_firings (notification_id, step_key, user_id, type, texts, path, assets, explanation, fired_at)
       select notification_id, 'bulk' || g, user_id, type,
              jsonb_build_object('ru', jsonb_build_object('title', 'T', 'body', repeat('x', 4000)), 'en', jsonb_build_object('title', 'T', 'body', repeat('y', 4000))),
              path, assets, explanation, fired_at
         from notification_firings, generate_series(1, 4000) g where id = $1`,
      [firingId],
    );
    const server = stack.gw.app.getHttpServer() as Server;
    const sockets: Socket[] = [];
    const onConn = (s: Socket) => sockets.push(s);
    server.on('connection', onConn);
    const client = await rawGet('/api/notification-events/stream', { authorization: `Bearer ${await stack.token(u)}`, 'last-event-id': '0' });
    client.pause();
    try {
      let maxBuffered = 0;
      const until = Date.now() + 4000;
      while (Date.now() < until) {
        for (const s of sockets) maxBuffered = Math.max(maxBuffered, s.writableLength);
        await sleep(200);
      }
      // A replay that waits for 'drain' keeps at most a batch or so in the gateway's memory.
      expect(maxBuffered, `bytes queued in the gateway for one non-reading client: ${maxBuffered}`).toBeLessThan(6 * 1024 * 1024);
    } finally {
      server.off('connection', onConn);
      client.destroy();
    }
  }, 30_000);
});

describe('big firings', () => {
  it('firings too big for one NATS reply in a batch of 100 still stream, every one, and an inbox page of 100 answers', async () => {
    const { u, firingId } = await userWithOneFiring();
    // A watchlist target fires with every member that crossed: 255 assets, ~40 KB a firing; 100 of them are ~4 MB.
    await stack.alerts.db.query(
      `insert into notification_firings (notification_id, step_key, user_id, type, texts, path, assets, explanation, fired_at)
       select f.notification_id, 'wide' || g, f.user_id, f.type, f.texts, f.path,
              (select jsonb_agg((f.assets::jsonb -> 0) || jsonb_build_object('id', i, 'ticker', 'T' || i, 'name', 'Company number ' || i || ' public joint stock company')) from generate_series(1, 255) i),
              f.explanation, f.fired_at
         from notification_firings f, generate_series(1, 120) g where f.id = $1`,
      [firingId],
    );
    // Read until all 120 came (or 30 s passed): the replay goes in smaller batches, as fast as the machine allows.
    const res = await fetch(new URL('/api/notification-events/stream', stack.base), { headers: { authorization: `Bearer ${await stack.token(u)}`, 'last-event-id': String(firingId) } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = Date.now() + 30_000;
    while ([...text.matchAll(/^id: (\d+)$/gm)].length < 120 && Date.now() < until) {
      const r = await Promise.race([reader.read(), sleep(until - Date.now()).then(() => undefined)]);
      if (!r || r.done) break;
      text += decoder.decode(r.value, { stream: true });
    }
    await reader.cancel().catch(() => undefined);
    expect([...text.matchAll(/^id: (\d+)$/gm)].length).toBe(120);

    // The inbox's page of 100 (~4 MB) is put together from smaller replies: the same rows as five pages of 20.
    const big = await api('GET', '/api/notification-events?per_page=100&page=1', { user: u });
    expect(big.status).toBe(200);
    const small: number[] = [];
    for (let page = 1; page <= 5; page++) small.push(...(await api('GET', `/api/notification-events?per_page=20&page=${page}`, { user: u })).body.data.map((f: { id: number }) => f.id));
    expect(big.body.data.map((f: { id: number }) => f.id)).toEqual(small);
    expect(big.body.meta).toMatchObject({ current_page: 1, per_page: 100, total: 121, last_page: 2, from: 1, to: 100 });
    // An odd page size too (asked row by row).
    const odd = await api('GET', '/api/notification-events?per_page=99&page=1', { user: u });
    expect(odd.status).toBe(200);
    expect(odd.body.data.map((f: { id: number }) => f.id)).toEqual(small.slice(0, 99));
  }, 90_000);
});
