/**
 * The inbox and its SSE replay in firing-id order when the ids pass a power of ten (they were once ordered by
 * the id as text: "9" after "12", and a stream skipped firings for good), and a burst of firings for one user
 * (more than one replay batch) delivered once each, in order.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;

const api: AlertsStack['api'] = (...args) => stack.api(...args);

beforeAll(async () => {
  stack = await startAlertsStack('evorder', { tickers: ['SBER'], openingRates: [{ ticker: 'SBER', rate: 100, change: 0 }] });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

async function openStream(u: string, lastEventId?: string) {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${await stack.token(u)}` };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const res = await fetch(new URL('/api/notification-events/stream', stack.base), { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = '';
  const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  const readUntil = async (ok: () => boolean, what: string, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    while (!ok()) {
      if (Date.now() > until) throw new Error(`stream lacks ${what}: ${ids().length} ids`);
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      text += new TextDecoder().decode(value);
    }
  };
  return { ids, readUntil, close: () => controller.abort() };
}

/**
 * A price target of `u` at `target` (above the current rate), fired by a move to `rate`; its firing's id. A marker: the
 * stream sends it after everything the user's earlier firings made it send.
 */
async function firingAfter(u: string, target: number, rate: number): Promise<number> {
  const created = await api('POST', '/api/price-alert', { user: u, body: { target_price: target, assetable: { type: 'share', id: stack.shareIds.SBER } } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await stack.applyRates([{ ticker: 'SBER', rate, change: 0 }]);
  const [fired] = await stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where notification_id = $1', [created.body.data.id]);
  expect(fired, 'the marker fired').toBeDefined();
  return Number(fired!.id);
}

describe('inbox order', () => {
  it('GET /api/notification-events is newest first when firing ids cross a power of ten (9 → 10), and the SSE replay sends each once in id order', async () => {
    const u = `order-${randomUUID().slice(0, 8)}`;
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      // Fired one at a time: the firing ids grow 1, 2, ... 12 (a fresh database).
      const r = await api('POST', '/api/price-alert', { user: u, body: { target_price: 100 + (i + 1) * 0.5, assetable: { type: 'share', id: stack.shareIds.SBER } } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      await stack.applyRates([{ ticker: 'SBER', rate: 100 + (i + 1) * 0.5, change: 0 }]);
      ids.push(r.body.data.id);
    }
    const fired = (await stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where user_id = $1 order by notification_firings.id', [u])).map((r) => Number(r.id));
    expect(fired).toHaveLength(12);
    const inbox = await api('GET', '/api/notification-events?per_page=5', { user: u });
    // Issue: "GET /api/notification-events (paged, newest first ...)".
    expect(inbox.body.data.map((e: { id: number }) => e.id)).toEqual([...fired].reverse().slice(0, 5));
  });

  it('the SSE replay from Last-Event-ID 0 sends each firing once, in id order, and then only what fires next', async () => {
    const u = `order-${randomUUID().slice(0, 8)}`;
    await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    for (let i = 0; i < 3; i++) {
      const r = await api('POST', '/api/price-alert', { user: u, body: { target_price: 100 + (i + 1) * 0.5, assetable: { type: 'share', id: stack.shareIds.SBER } } });
      expect(r.status).toBe(201);
      await stack.applyRates([{ ticker: 'SBER', rate: 100 + (i + 1) * 0.5, change: 0 }]);
    }
    const mine = (await stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where user_id = $1 order by notification_firings.id', [u])).map((r) => Number(r.id));
    expect(mine).toHaveLength(3);
    // Replay from just before the user's first firing.
    const s = await openStream(u, String(mine[0]! - 1));
    await s.readUntil(() => s.ids().length >= 3, 'replay');
    expect(s.ids()).toEqual(mine);
    // One more firing: exactly it comes next, once.
    await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
    const r = await api('POST', '/api/price-alert', { user: u, body: { target_price: 101.75, assetable: { type: 'share', id: stack.shareIds.SBER } } });
    await stack.applyRates([{ ticker: 'SBER', rate: 102, change: 0 }]);
    const next = (await stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where notification_id = $1', [r.body.data.id])).map((x) => Number(x.id));
    await s.readUntil(() => s.ids().includes(next[0]!), 'the next firing');
    // Nothing else comes with it (the replay again, a second copy): the stream's next event is a later firing.
    const marker = await firingAfter(u, 102.5, 103);
    await s.readUntil(() => s.ids().includes(marker), 'the marker firing');
    s.close();
    expect(s.ids()).toEqual([...mine, ...next, marker]);
    await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  });
});

describe('SSE burst', () => {
  it('delivers every one of 150 firings of one batch once, in order', async () => {
    const u = `order-${randomUUID().slice(0, 8)}`;
    const uuid = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
    expect((await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } })).status).toBe(200);
    stack.alerts.entitlements.invalidate(u);
    // More than one replay batch (100), with ids passing 99 → 100 (the file's earlier firings come first).
    const N = 150;
    for (let i = 0; i < N; i += 10) {
      const created = await Promise.all(
        Array.from({ length: 10 }, (_, k) => api('POST', '/api/price-alert', { user: u, body: { target_price: 101 + i + k, assetable: { type: 'share', id: stack.shareIds.SBER } } })),
      );
      for (const r of created) expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const s = await openStream(u);
    await s.readUntil(() => true, 'connected');
    await stack.applyRates([{ ticker: 'SBER', rate: 1000, change: 0 }]);
    const all = (await stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where user_id = $1 order by notification_firings.id', [u])).map((r) => Number(r.id));
    expect(all).toHaveLength(N);
    // Read until every firing came (a firing that never comes is named below), then until a marker firing made
    // after them: whatever the stream sends for the burst (a repeat, too) comes before it.
    const cameAll = () => {
      const got = new Set(s.ids());
      return all.every((id) => got.has(id));
    };
    await s.readUntil(cameAll, `all ${N} firings`, 60_000).catch(() => undefined);
    const marker = await firingAfter(u, 1001, 1002);
    await s.readUntil(() => s.ids().includes(marker), 'the marker firing');
    s.close();
    expect(s.ids().at(-1)).toBe(marker);
    const got = s.ids().slice(0, -1);
    const missing = all.filter((id) => !got.includes(id));
    const duplicated = got.filter((id, i) => got.indexOf(id) !== i);
    // Issue: "live over SSE ... a reconnect with Last-Event-ID receives what it missed": every firing, once, in order.
    expect({ first: all[0], last: all[N - 1], received: got.length, missing, duplicated, inOrder: got.every((id, i) => i === 0 || id > got[i - 1]!) }).toEqual({
      first: all[0],
      last: all[N - 1],
      received: N,
      missing: [],
      duplicated: [],
      inOrder: true,
    });
    await stack.applyRates([{ ticker: 'SBER', rate: 100, change: 0 }]);
  }, 120_000);
});
