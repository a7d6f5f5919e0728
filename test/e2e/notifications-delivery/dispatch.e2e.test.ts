/**
 * From a firing to a message: alerts fire (real rate batches through the screener), delivery groups the firings of
 * one move, seals them into deliveries per channel and address, and sends them through a recording channel
 * registered in the app options. Quiet hours (on delivery's injected clock) hold messages for one digest; a
 * notification switched off or deleted meanwhile sends nothing; retries and permanent failures are recorded.
 */
import { randomUUID } from 'node:crypto';
import { Subjects } from '@invest/contracts';
import { eventually, metricValue } from '@invest/platform/testing/index';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStack, OPENING_RATES_FOR_DELIVERY, RecordingSender, startDeliveryStack } from '../support/delivery-stack.js';

const PUBLIC = 'https://invest.test';
const recorder = new RecordingSender('telegram');
let stack: DeliveryStack;
/** The latest rate of each ticker the tests moved (price targets are set above it). */
const rates: Record<string, number> = Object.fromEntries(OPENING_RATES_FOR_DELIVERY.map((r) => [r.ticker, r.rate]));

beforeAll(async () => {
  stack = await startDeliveryStack('dlvdsp', {
    tickers: ['SBER', 'GAZP', 'LKOH'],
    openingRates: OPENING_RATES_FOR_DELIVERY,
    delivery: { senders: [recorder], publicBaseUrl: PUBLIC, groupWindowMs: 1_000, retryBaseMs: 50 },
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});
afterEach(() => {
  stack.deliveryClock.now = null;
});

const user = () => `dsp-${randomUUID().slice(0, 8)}`;

/** Price targets of `u` on `ticker` at these prices (above its rate); their ids. */
async function targets(u: string, ticker: string, prices: number[]): Promise<number[]> {
  const ids: number[] = [];
  for (const target_price of prices) {
    const res = await stack.api('POST', '/api/price-alert', { user: u, body: { target_price, assetable: stack.share(ticker) } });
    expect(res.status, res.text).toBe(201);
    ids.push(res.body.data.id);
  }
  return ids;
}

/** A price-change notification of `u` on `ticker` at `threshold` percent; its id. */
async function changeAlert(u: string, ticker: string, threshold: number): Promise<number> {
  const body = { threshold, frequency: 'hourly', targetable_type: 'asset', targetable_id: stack.shareIds[ticker], assetable_type_simplified: 'share' };
  const res = await stack.api('POST', '/api/price-change-alert', { user: u, body });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

/** One rate batch moving `ticker` to `rate` with this 24h change. */
async function move(ticker: string, rate: number, change: number): Promise<void> {
  await stack.applyRates([{ ticker, rate, change }]);
  rates[ticker] = rate;
}

const received = (u: string) => stack.delivery.db.query<{ firing_id: string; group_id: string }>('select firing_id::text, group_id::text from received_firings where user_id = $1', [u]);
const deliveries = (u: string) =>
  stack.delivery.db.query<{ id: string; status: string; attempts: number; next_attempt_at: Date; last_error: string | null; provider_id: string | null }>(
    'select id::text, status, attempts, next_attempt_at, last_error, provider_id from deliveries where user_id = $1 order by id',
    [u],
  );
const settled = (u: string, count: number) =>
  eventually(() => deliveries(u), (rows) => rows.length === count && rows.every((r) => r.status !== 'pending'), `${count} deliveries of ${u} settled`, 20_000);
const firingsOf = async (u: string, n: number) => eventually(() => received(u), (rows) => rows.length === n, `${n} firings of ${u} received`, 20_000);

describe('dispatch', () => {
  it('three firings of one move go out as one message: "LKOH +5,2 %: 3 уведомления", each firing a line', async () => {
    const u = user();
    const address = recorder.link(u);
    const base = rates.LKOH!;
    await targets(u, 'LKOH', [base + 1, base + 2, base + 3]);
    await move('LKOH', base + 10, 5.2);

    const rows = await firingsOf(u, 3);
    expect(new Set(rows.map((r) => r.group_id)).size).toBe(1);
    await settled(u, 1);
    const sent = recorder.sentTo(address);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.title).toBe('LKOH +5,2\u00a0%: 3 уведомления');
    expect(sent[0]!.lines).toHaveLength(3);
    for (const line of sent[0]!.lines) expect(line).toContain('LKOH');
    expect(sent[0]!.url).toBe(`${PUBLIC}/notifications`);
    expect(sent[0]!.digest).toBe(false);
    expect(sent[0]!.firings.map((f) => f.firingId).sort()).toEqual(rows.map((r) => Number(r.firing_id)).sort());
    const [row] = await deliveries(u);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, provider_id: expect.stringMatching(/^msg-/) });
  });

  it('messages due in the quiet hours wait for their end and go out as one digest in the user\'s language', async () => {
    const u = user();
    const address = recorder.link(u);
    const put = await stack.api('PUT', '/api/notification-settings', { user: u, body: { quiet_hours: { start: '22:00', end: '06:00' }, time_zone: 'Asia/Tokyo', language: 'en' } });
    expect(put.status, put.text).toBe(200);
    // 01:00 in Tokyo; the quiet hours end at 06:00 there (21:00Z).
    const night = new Date('2026-03-10T16:00:00Z');
    const quietEnd = new Date('2026-03-10T21:00:00Z');
    stack.deliveryClock.now = night;

    await targets(u, 'SBER', [rates.SBER! + 1, rates.SBER! + 2]);
    await move('SBER', rates.SBER! + 3, 3.1);
    await firingsOf(u, 2);
    stack.deliveryClock.now = new Date(night.getTime() + 5 * 60_000);
    await eventually(() => deliveries(u), (rows) => rows.length === 1, 'the first move sealed');

    await targets(u, 'GAZP', [rates.GAZP! + 1]);
    await move('GAZP', rates.GAZP! + 2, 1.2);
    await firingsOf(u, 3);
    stack.deliveryClock.now = new Date(night.getTime() + 10 * 60_000);
    const held = await eventually(() => deliveries(u), (rows) => rows.length === 2, 'the second move sealed');
    // Two moves, two messages due at the end of the quiet hours; nothing sent meanwhile.
    expect(held.map((r) => [r.status, new Date(r.next_attempt_at).toISOString()])).toEqual([
      ['pending', quietEnd.toISOString()],
      ['pending', quietEnd.toISOString()],
    ]);
    expect(recorder.sentTo(address)).toEqual([]);

    stack.deliveryClock.now = new Date(quietEnd.getTime() + 30_000);
    await settled(u, 2);
    const sent = recorder.sentTo(address);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ title: 'Digest: 3 notifications', digest: true, language: 'en', url: `${PUBLIC}/notifications` });
    expect(sent[0]!.lines).toHaveLength(3);
    // Each firing's body in English (asset names are as the market names them).
    for (const line of sent[0]!.lines) expect(line).toContain('reached the target price');
  });

  it('a notification switched off or deleted before its turn is not sent; the rest of its move is', async () => {
    const u = user();
    const address = recorder.link(u);
    // The delivery clock stands still: the move's group is not due until it moves on.
    stack.deliveryClock.now = new Date();
    const off = await changeAlert(u, 'GAZP', 1);
    const kept = await changeAlert(u, 'GAZP', 2);
    const [deleted] = await targets(u, 'GAZP', [rates.GAZP! + 1]);
    await move('GAZP', rates.GAZP! + 5, 3.4);
    await firingsOf(u, 3);

    expect((await stack.api('POST', `/api/switch-notification/${off}`, { user: u })).body.data.is_active).toBe(false);
    expect((await stack.api('DELETE', `/api/notifications/${deleted}`, { user: u })).status).toBe(204);
    stack.deliveryClock.now = null;
    await settled(u, 1);
    const sent = recorder.sentTo(address);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.firings.map((f) => f.notificationId)).toEqual([kept]);
    // One firing: its own title.
    expect(sent[0]!.title).toMatch(/^GAZP/);
    // Alerts answers about a user's own firings only: asked for another user, the kept one is not deliverable.
    const firingIds = (await received(u)).map((r) => Number(r.firing_id));
    const asked = (userId: string) =>
      stack.gw.rpc.request<{ data: { firing_ids: number[] } }>(Subjects.alerts.firingsDeliverable, { firings: firingIds.map((id) => ({ user_id: userId, firing_id: id })) });
    expect((await asked(u)).data.firing_ids).toEqual([sent[0]!.firings[0]!.firingId]);
    expect((await asked(user())).data.firing_ids).toEqual([]);

    // Everything of a move switched off: nothing at all, recorded as skipped.
    const v = user();
    recorder.link(v);
    stack.deliveryClock.now = new Date();
    const only = await changeAlert(v, 'LKOH', 1);
    await move('LKOH', rates.LKOH! + 1, 1.5);
    await firingsOf(v, 1);
    expect((await stack.api('POST', `/api/switch-notification/${only}`, { user: v })).body.data.is_active).toBe(false);
    stack.deliveryClock.now = null;
    const [skipped] = await settled(v, 1);
    expect(skipped).toMatchObject({ status: 'skipped', attempts: 0 });
    expect(recorder.sentTo(`rec-${v}`)).toEqual([]);
  });

  it('a retryable failure is tried again after the wait the provider asked for, then sent once', async () => {
    const u = user();
    const address = recorder.link(u);
    recorder.script(address, { outcome: 'retry', reason: '429 Too Many Requests', afterMs: 200 }, { outcome: 'retry', reason: '502 Bad Gateway' });
    await targets(u, 'SBER', [rates.SBER! + 1]);
    await move('SBER', rates.SBER! + 2, 2);
    const [row] = await settled(u, 1);
    expect(row).toMatchObject({ status: 'sent', attempts: 3, last_error: null });
    const calls = recorder.calls.filter((c) => c.address === address);
    expect(calls.map((c) => c.result.outcome)).toEqual(['retry', 'retry', 'sent']);
    // The 429's wait (200 ms), then the backoff's second step (2 × 50 ms).
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(190);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(90);
    expect(recorder.sentTo(address)).toHaveLength(1);
  });

  it("a provider's wait counts from its answer: a slow 429 is not tried again before its retry_after", async () => {
    const u = user();
    const address = recorder.link(u);
    // The answer comes 400 ms after the call; its wait of 300 ms runs from then, not from when the send was claimed.
    recorder.script(address, { outcome: 'retry', reason: '429 Too Many Requests', afterMs: 300, takesMs: 400 });
    await targets(u, 'GAZP', [rates.GAZP! + 1]);
    await move('GAZP', rates.GAZP! + 2, 2);
    const [row] = await settled(u, 1);
    expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    const calls = recorder.calls.filter((c) => c.address === address);
    expect(calls.map((c) => c.result.outcome)).toEqual(['retry', 'sent']);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(400 + 290);
  });

  it('a permanent failure is recorded, shown in the settings and handed to the channel; a later success clears it', async () => {
    const u = user();
    const address = recorder.link(u);
    recorder.script(address, { outcome: 'permanent', reason: 'Forbidden: bot was blocked by the user' });
    await targets(u, 'LKOH', [rates.LKOH! + 1]);
    await move('LKOH', rates.LKOH! + 2, 0.5);
    const [row] = await settled(u, 1);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, last_error: 'Forbidden: bot was blocked by the user' });
    expect(recorder.permanentFailures).toContainEqual({ userId: u, address, reason: 'Forbidden: bot was blocked by the user' });
    const view = await stack.api('GET', '/api/notification-settings', { user: u });
    expect(view.body.data.last_failures).toEqual([{ channel: 'telegram', at: expect.any(String), reason: 'Forbidden: bot was blocked by the user' }]);
    // Nobody else's settings show it.
    expect((await stack.api('GET', '/api/notification-settings', { user: user() })).body.data.last_failures).toEqual([]);

    await targets(u, 'LKOH', [rates.LKOH! + 1]);
    await move('LKOH', rates.LKOH! + 2, 0.6);
    await settled(u, 2);
    expect(recorder.sentTo(address)).toHaveLength(1);
    expect((await stack.api('GET', '/api/notification-settings', { user: u })).body.data.last_failures).toEqual([]);
  });

  it('a channel switched off, or a user without an address, gets nothing; the firings are still received', async () => {
    const u = user();
    const address = recorder.link(u);
    expect((await stack.api('PUT', '/api/notification-settings', { user: u, body: { channels: { telegram: false } } })).status).toBe(200);
    const nobody = user();
    await targets(u, 'SBER', [rates.SBER! + 1]);
    await targets(nobody, 'SBER', [rates.SBER! + 1]);
    await move('SBER', rates.SBER! + 2, 0.7);
    await firingsOf(u, 1);
    await firingsOf(nobody, 1);
    await eventually(() => stack.delivery.db.query('select 1 from message_groups where user_id = any($1) and sealed_at is not null', [[u, nobody]]), (r) => r.length === 2, 'both groups sealed');
    expect(await deliveries(u)).toEqual([]);
    expect(await deliveries(nobody)).toEqual([]);
    expect(recorder.sentTo(address)).toEqual([]);
  });

  it('counts each message by channel and outcome once its transaction commits (invest_delivery_outcomes_total)', async () => {
    const outcomes = ['sent', 'retried', 'failed', 'skipped'] as const;
    const counted = () => Promise.all(outcomes.map((outcome) => metricValue('invest_delivery_outcomes_total', { channel: 'telegram', outcome })));
    const before = await counted();

    // Refused once and tried again, then sent.
    const retried = user();
    recorder.script(recorder.link(retried), { outcome: 'retry', reason: '502 Bad Gateway' });
    await targets(retried, 'SBER', [rates.SBER! + 1]);
    // Refused for good.
    const refused = user();
    recorder.script(recorder.link(refused), { outcome: 'permanent', reason: 'Forbidden: bot was blocked by the user' });
    await targets(refused, 'SBER', [rates.SBER! + 1]);
    await move('SBER', rates.SBER! + 2, 0.8);
    await settled(retried, 1);
    await settled(refused, 1);
    // Every notification of the message switched off before its turn: skipped.
    const skipped = user();
    recorder.link(skipped);
    stack.deliveryClock.now = new Date();
    const only = await changeAlert(skipped, 'LKOH', 1);
    await move('LKOH', rates.LKOH! + 1, 1.6);
    await firingsOf(skipped, 1);
    expect((await stack.api('POST', `/api/switch-notification/${only}`, { user: skipped })).body.data.is_active).toBe(false);
    stack.deliveryClock.now = null;
    await settled(skipped, 1);

    const after = await counted();
    expect(Object.fromEntries(outcomes.map((o, i) => [o, after[i]! - before[i]!]))).toEqual({ sent: 1, retried: 1, failed: 1, skipped: 1 });
  });
});
