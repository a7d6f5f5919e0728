/**
 * Web push end to end: alerts fire on real rate batches, delivery sends the message with web-push to the local push
 * service (HTTPS, VAPID checked), which decrypts it with the synthetic browser's private key. A subscription the
 * push service reports gone (410) is deleted and the failure shown in the settings; the service's page registers a
 * synthetic browser through the gateway as a person would.
 */
import { randomUUID } from 'node:crypto';
import { type FakePushDevice, type FakePushService, pushConfigTrusting, startFakePushService } from '@invest/delivery/testing/fake-push-service';
import { eventually } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStack, startDeliveryStack } from '../support/delivery-stack.js';

const PUBLIC = 'https://invest.test';
let fake: FakePushService;
let stack: DeliveryStack;
/** The latest rate of each ticker (price targets are set above it). */
const rates: Record<string, number> = { SBER: 100, GAZP: 200 };

beforeAll(async () => {
  fake = await startFakePushService();
  stack = await startDeliveryStack('dlvpush', {
    tickers: ['SBER', 'GAZP'],
    openingRates: Object.entries(rates).map(([ticker, rate]) => ({ ticker, rate, change: 0 })),
    delivery: { push: pushConfigTrusting(fake), publicBaseUrl: PUBLIC, groupWindowMs: 300, retryBaseMs: 50 },
  });
  fake.setGatewayUrl(stack.base);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

const user = () => `push-${randomUUID().slice(0, 8)}`;

/** A synthetic browser of `u`, subscribed with the server's key and stored through the API, as the web client does. */
async function subscribe(u: string): Promise<FakePushDevice> {
  const key = await stack.api('GET', '/api/push-subscriptions/key', { user: u });
  expect(key.status, key.text).toBe(200);
  const device = fake.createDevice({ applicationServerKey: key.body.data.public_key, userId: u });
  const res = await stack.api('POST', '/api/push-subscriptions', { user: u, body: device.subscription });
  expect(res.status, res.text).toBe(201);
  return device;
}

/** A price target of `u` just above `ticker`'s rate, and the move that crosses it. */
async function fire(u: string, ticker: string): Promise<void> {
  const res = await stack.api('POST', '/api/price-alert', { user: u, body: { target_price: rates[ticker]! + 1, assetable: stack.share(ticker) } });
  expect(res.status, res.text).toBe(201);
  rates[ticker] = rates[ticker]! + 5;
  await stack.applyRates([{ ticker, rate: rates[ticker]!, change: 2.5 }]);
}

const subscriptions = (u: string) => stack.delivery.db.query<{ endpoint: string }>('select endpoint from push_subscriptions where user_id = $1', [u]);
const deliveries = (u: string) =>
  stack.delivery.db.query<{ status: string; last_error: string | null; provider_id: string | null }>("select status, last_error, provider_id from deliveries where user_id = $1 and channel = 'push' order by id", [u]);

describe('web push', () => {
  it('a subscription made through the API receives the message encrypted; decrypted, it is the firing in the user\'s language', async () => {
    const u = user();
    const device = await subscribe(u);
    expect((await stack.api('PUT', '/api/notification-settings', { user: u, body: { language: 'en' } })).status).toBe(200);
    await fire(u, 'SBER');

    const [got] = await eventually(() => Promise.resolve(fake.received(device.id)), (r) => r.length === 1, 'the push received');
    const inbox = await stack.api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': 'en' } });
    const [event] = inbox.body.data;
    expect(got!.json).toEqual({ title: event.title, body: event.body, url: `${PUBLIC}/notifications`, tag: `firing-${event.id}` });
    expect(event.title).toContain('SBER');
    expect(got).toMatchObject({ ttl: 86400, vapid: { aud: fake.url } });
    const [row] = await eventually(() => deliveries(u), (rows) => rows[0]?.status === 'sent', 'the delivery recorded as sent');
    expect(row!.provider_id).toMatch(new RegExp(`^${fake.url}/m/\\d+$`));
  });

  it('a subscription the push service says is gone (410) is deleted, and the settings show the failure; other devices still get theirs', async () => {
    const u = user();
    const gone = await subscribe(u);
    const alive = await subscribe(u);
    fake.expire(gone.id, 410);
    await fire(u, 'GAZP');

    await eventually(() => subscriptions(u), (rows) => rows.length === 1, 'the gone subscription deleted');
    expect(await subscriptions(u)).toEqual([{ endpoint: alive.subscription.endpoint }]);
    expect(fake.received(gone.id)).toEqual([]);
    expect(fake.received(alive.id)).toHaveLength(1);
    expect(fake.rejected()).toContainEqual(expect.objectContaining({ deviceId: gone.id, status: 410 }));
    expect((await deliveries(u)).map((d) => d.status).sort()).toEqual(['failed', 'sent']);

    const settings = await stack.api('GET', '/api/notification-settings', { user: u });
    expect(settings.body.data.push).toEqual({ devices: 1 });
    expect(settings.body.data.last_failures).toEqual([{ channel: 'push', at: expect.any(String), reason: 'push subscription gone (HTTP 410); removed' }]);
  });

  it('with push switched off in the settings nothing is sent to the browser', async () => {
    const u = user();
    const device = await subscribe(u);
    const other = user();
    const witness = await subscribe(other);
    expect((await stack.api('PUT', '/api/notification-settings', { user: u, body: { channels: { push: false } } })).status).toBe(200);
    // One move fires both users' targets; the witness's push arriving means the move was dispatched.
    for (const who of [u, other]) {
      const res = await stack.api('POST', '/api/price-alert', { user: who, body: { target_price: rates.SBER! + 1, assetable: stack.share('SBER') } });
      expect(res.status, res.text).toBe(201);
    }
    rates.SBER = rates.SBER! + 5;
    await stack.applyRates([{ ticker: 'SBER', rate: rates.SBER, change: 1 }]);
    await eventually(() => Promise.resolve(fake.received(witness.id)), (r) => r.length === 1, "the witness's push");
    await eventually(() => stack.delivery.db.query('select 1 from received_firings where user_id = $1', [u]), (r) => r.length === 1, 'the firing received');
    expect(fake.received(device.id)).toEqual([]);
    expect(await deliveries(u)).toEqual([]);
  });

  it("the push service's page subscribes a synthetic browser for a user through the gateway, and shows what it receives", async () => {
    const u = user();
    const form = await fetch(`${fake.pageUrl}/devices`, { method: 'POST', body: new URLSearchParams({ user_id: u }), redirect: 'manual' });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/');
    const [stored] = await subscriptions(u);
    expect(stored?.endpoint.startsWith(`${fake.url}/push/`)).toBe(true);

    await fire(u, 'SBER');
    const deviceId = stored!.endpoint.split('/').pop()!;
    const [got] = await eventually(() => Promise.resolve(fake.received(deviceId)), (r) => r.length === 1, 'the push received');
    const page = await (await fetch(fake.pageUrl)).text();
    expect(page).toContain(u);
    const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    expect(page).toContain(html((got!.json as { title: string }).title));

    const crossSite = await fetch(`${fake.pageUrl}/devices`, { method: 'POST', headers: { origin: 'https://evil.example' }, body: new URLSearchParams({ user_id: u }) });
    expect(crossSite.status).toBe(403);
  });
});
