/**
 * The notification stream writes each NotificationFired as it goes by, rendered as the firing's inbox row, without
 * reading the alerts inbox for it; the inbox read stays for the replay and as the backstop of a lost message, and
 * nothing goes out twice on one stream or to another user (real alerts stack; the backstop read every 300 ms).
 */
import { randomUUID } from 'node:crypto';
import { AlertsEventTypes, eventSubject, type NotificationEventView, Subjects } from '@invest/contracts';
import { busSubject, type RpcClient } from '@invest/platform';
import { eventually } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AlertsStack, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;

beforeAll(async () => {
  stack = await startAlertsStack('gwssepush', {
    tickers: ['SBER'],
    openingRates: [{ ticker: 'SBER', rate: 100, change: 0 }],
    gateway: { notificationStream: { pollMs: 300, heartbeatMs: 300 } },
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const user = () => `push-${randomUUID().slice(0, 8)}`;

/** A price target of `u` crossed (SBER from 100 to `target`): the id of its firing. */
async function fire(u: string, target: number): Promise<number> {
  await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  const created = await stack.api('POST', '/api/price-alert', { user: u, body: { target_price: target, assetable: stack.share('SBER') } });
  expect(created.status, created.text).toBe(201);
  await stack.applyRates([{ ticker: 'SBER', rate: target, change: 0 }]);
  const [fired] = await stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where notification_id = $1', [created.body.data.id]);
  expect(fired, 'the firing').toBeDefined();
  return Number(fired!.id);
}

/** A notification stream of `u` from `Last-Event-ID` 0: the firings it sent (id lines and rows), in order. */
async function openStream(u: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(new URL('/api/notification-events/stream', stack.base), {
    headers: { authorization: `Bearer ${await stack.token(u)}`, 'last-event-id': '0', ...headers },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  const rows = () => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as NotificationEventView);
  const readUntil = async (ok: () => boolean, what: string, timeoutMs = 15_000) => {
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      while (!ok()) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += decoder.decode(value, { stream: true });
      }
    } catch (err) {
      throw new Error(`stream lacks ${what} (ids ${ids().join(', ')}): ${String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  };
  return { ids, rows, readUntil, close: () => controller.abort() };
}

describe('live firings', () => {
  it('reach the stream while the alerts inbox is not asked, each as the inbox row of the firing in the stream’s locale', async () => {
    const u = user();
    const rpc = stack.gw.rpc;
    const request = rpc.request.bind(rpc);
    let refused = 0;
    let refusing = false;
    // Once both streams have read their replay, the inbox answers none of the user's reads: what comes, came live.
    const spy = vi.spyOn(rpc, 'request').mockImplementation(((subject: string, data: unknown, meta?: { userId?: string }) => {
      if (refusing && subject === Subjects.alerts.notificationEventsList && meta?.userId === u) {
        refused++;
        return Promise.reject(new Error('the inbox is not asked in this test'));
      }
      return request(subject, data, meta);
    }) as RpcClient['request']);
    const inboxReads = () => spy.mock.calls.filter((c) => c[0] === Subjects.alerts.notificationEventsList && (c[2] as { userId?: string } | undefined)?.userId === u).length;
    let en: Awaited<ReturnType<typeof openStream>> | undefined;
    let ru: Awaited<ReturnType<typeof openStream>> | undefined;
    try {
      en = await openStream(u, { 'accept-language': 'en-US,en;q=0.9' });
      ru = await openStream(u);
      await eventually(async () => inboxReads(), (n) => n >= 2, 'the replays’ inbox reads');
      await Promise.all(spy.mock.results.map((r) => Promise.resolve(r.value).catch(() => undefined)));
      refusing = true;

      const id = await fire(u, 101.5);
      await en.readUntil(() => en!.ids().includes(id), `firing ${id} (en)`);
      await ru.readUntil(() => ru!.ids().includes(id), `firing ${id} (ru)`);
      // The backstop reads went on meanwhile, refused: the refusal was in force.
      await eventually(async () => refused, (n) => n >= 2, 'refused backstop reads');
    } finally {
      refusing = false;
      spy.mockRestore();
      en?.close();
      ru?.close();
    }
    // Each pushed row is the row the inbox lists for the firing, field by field.
    const inboxEn = await stack.api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en' } });
    const inboxRu = await stack.api('GET', '/api/notification-events', { user: u });
    expect(inboxEn.body.data).toHaveLength(1);
    expect(en.rows()).toEqual(inboxEn.body.data);
    expect(ru.rows()).toEqual(inboxRu.body.data);
    expect(en.rows()[0]!.title).not.toBe(ru.rows()[0]!.title);
    expect(en.rows()[0]).toMatchObject({ read_at: null, notification_id: expect.any(Number) });
  });

  it('a firing whose event was lost comes with the backstop read, once; what was pushed is not sent again', async () => {
    const u = user();
    const s = await openStream(u);
    const pushed = await fire(u, 101.5);
    await s.readUntil(() => s.ids().includes(pushed), 'the pushed firing');
    // A firing committed without its NotificationFired reaching the gateway (core NATS lost it).
    const [lost] = await stack.alerts.db.query<{ id: string }>(
      `insert into notification_firings (notification_id, step_key, user_id, type, texts, path, assets, explanation, fired_at)
       select notification_id, 'lost', user_id, type, texts, path, assets, explanation, fired_at from notification_firings where id = $1 returning id::text`,
      [pushed],
    );
    await s.readUntil(() => s.ids().includes(Number(lost!.id)), 'the lost firing');
    const marker = await fire(u, 102.5);
    await s.readUntil(() => s.ids().includes(marker), 'the marker firing');
    s.close();
    expect(s.ids()).toEqual([pushed, Number(lost!.id), marker]);
  });

  it('a NotificationFired published twice is sent once, and only to its user’s streams', async () => {
    const [alice, bob] = [user(), user()];
    const a = await openStream(alice);
    const b = await openStream(bob);
    const subject = busSubject(stack.busPrefix, eventSubject('alerts', AlertsEventTypes.NotificationFired));
    const copies: Uint8Array[] = [];
    const sub = stack.bus.nc.subscribe(subject, {
      callback: (_e, m) => {
        if (m.json<{ data: { userId: string } }>().data.userId === alice) copies.push(m.data);
      },
    });
    await stack.bus.nc.flush();
    try {
      const first = await fire(alice, 101.5);
      await a.readUntil(() => a.ids().includes(first), 'Alice’s firing');
      await eventually(async () => copies.length, (n) => n === 1, 'Alice’s NotificationFired');
      // Published again, as the alerts publication backstop may (a second copy of the same firing).
      stack.bus.nc.publish(subject, copies[0]!);
      await stack.bus.nc.flush();
      const bobs = await fire(bob, 102.5);
      await b.readUntil(() => b.ids().includes(bobs), 'Bob’s firing');
      const marker = await fire(alice, 103.5);
      await a.readUntil(() => a.ids().includes(marker), 'Alice’s marker firing');
      expect(a.ids()).toEqual([first, marker]);
      expect(b.ids()).toEqual([bobs]);
    } finally {
      sub.unsubscribe();
      a.close();
      b.close();
    }
  });
});
