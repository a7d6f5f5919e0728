/**
 * The web push subscription API through the gateway and the delivery service: the VAPID key (generated once in
 * development and kept across restarts), storing a browser's subscription idempotently, and that no user can take
 * over or remove another user's subscription.
 */
import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { createLogger } from '@invest/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStack, startDeliveryStack } from '../support/delivery-stack.js';

let stack: DeliveryStack;
const user = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

/** What a browser's `PushSubscription.toJSON()` gives, for an endpoint nobody will send to. */
function browserSubscription(endpoint = `https://push.example.net/push/${randomBytes(16).toString('base64url')}`) {
  const ua = createECDH('prime256v1');
  ua.generateKeys();
  return { endpoint, expirationTime: null, keys: { p256dh: ua.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') } };
}

const rows = (endpoint: string) =>
  stack.delivery.db.query<{ user_id: string; p256dh: string }>('select user_id, p256dh from push_subscriptions where endpoint = $1', [endpoint]);

beforeAll(async () => {
  stack = await startDeliveryStack('dlvpushapi', { tickers: ['SBER'], delivery: { logger: createLogger('test', 'error') } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('web push subscriptions', () => {
  it('the VAPID public key is a P-256 point, generated once and kept across a restart', async () => {
    const u = user('key');
    const first = await stack.api('GET', '/api/push-subscriptions/key', { user: u });
    expect(first.status, first.text).toBe(200);
    const key = Buffer.from(first.body.data.public_key, 'base64url');
    expect(key.length).toBe(65);
    expect(key[0]).toBe(0x04);

    await stack.restartDelivery();
    const again = await stack.api('GET', '/api/push-subscriptions/key', { user: u });
    expect(again.body.data.public_key).toBe(first.body.data.public_key);
    expect(await stack.delivery.db.query('select 1 from vapid_keys')).toHaveLength(1);

    expect((await stack.api('GET', '/api/push-subscriptions/key')).status).toBe(401);
  });

  it('a subscription is stored once per endpoint; posting it again renews its keys', async () => {
    const u = user('alice');
    const sub = browserSubscription();
    const first = await stack.api('POST', '/api/push-subscriptions', { user: u, body: sub });
    expect(first.status, first.text).toBe(201);
    expect(first.body.data).toEqual({ endpoint: sub.endpoint, created_at: expect.any(String) });

    const renewed = { ...sub, keys: browserSubscription().keys };
    const second = await stack.api('POST', '/api/push-subscriptions', { user: u, body: renewed });
    expect(second.status, second.text).toBe(201);
    expect(second.body.data).toEqual(first.body.data);
    expect(await rows(sub.endpoint)).toEqual([{ user_id: u, p256dh: renewed.keys.p256dh }]);

    const settings = await stack.api('GET', '/api/notification-settings', { user: u });
    expect(settings.body.data.push).toEqual({ devices: 1 });
  });

  it("another user can neither take over nor delete my subscription; I can delete it, by body or by query", async () => {
    const alice = user('alice');
    const bob = user('bob');
    const sub = browserSubscription();
    expect((await stack.api('POST', '/api/push-subscriptions', { user: alice, body: sub })).status).toBe(201);

    const takeover = await stack.api('POST', '/api/push-subscriptions', { user: bob, body: browserSubscription(sub.endpoint) });
    expect(takeover.status, takeover.text).toBe(409);
    expect(await rows(sub.endpoint)).toEqual([{ user_id: alice, p256dh: sub.keys.p256dh }]);

    const bobDeletes = await stack.api('DELETE', '/api/push-subscriptions', { user: bob, body: { endpoint: sub.endpoint } });
    expect(bobDeletes.status, bobDeletes.text).toBe(204);
    const bobDeletesByQuery = await stack.api('DELETE', `/api/push-subscriptions?endpoint=${encodeURIComponent(sub.endpoint)}`, { user: bob });
    expect(bobDeletesByQuery.status, bobDeletesByQuery.text).toBe(204);
    expect(await rows(sub.endpoint)).toHaveLength(1);

    const mine = await stack.api('DELETE', `/api/push-subscriptions?endpoint=${encodeURIComponent(sub.endpoint)}`, { user: alice });
    expect(mine.status, mine.text).toBe(204);
    expect(await rows(sub.endpoint)).toEqual([]);

    // Freed, the endpoint can be registered by the browser's next user.
    expect((await stack.api('POST', '/api/push-subscriptions', { user: bob, body: browserSubscription(sub.endpoint) })).status).toBe(201);
    const byBody = await stack.api('DELETE', '/api/push-subscriptions', { user: bob, body: { endpoint: sub.endpoint } });
    expect(byBody.status, byBody.text).toBe(204);
    expect(await rows(sub.endpoint)).toEqual([]);
  });

  it('a bad subscription is a 422 naming the field, and nothing is stored', async () => {
    const u = user('bad');
    const good = browserSubscription();
    const cases: [unknown, string][] = [
      [{ ...good, endpoint: good.endpoint.replace('https:', 'http:') }, 'endpoint'],
      [{ ...good, endpoint: 'not a url' }, 'endpoint'],
      [{ ...good, keys: { ...good.keys, p256dh: good.keys.p256dh.slice(0, 40) } }, 'keys.p256dh'],
      [{ ...good, keys: { ...good.keys, auth: 'c2hvcnQ' } }, 'keys.auth'],
      [{ endpoint: good.endpoint }, 'keys'],
    ];
    for (const [body, field] of cases) {
      const res = await stack.api('POST', '/api/push-subscriptions', { user: u, body });
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect(await stack.delivery.db.query('select 1 from push_subscriptions where user_id = $1', [u])).toEqual([]);

    const noEndpoint = await stack.api('DELETE', '/api/push-subscriptions', { user: u });
    expect(noEndpoint.status, noEndpoint.text).toBe(422);
    expect(Object.keys(noEndpoint.body.errors)).toEqual(['endpoint']);
  });

  it('a user keeps at most 20 subscriptions: the 21st drops the oldest', async () => {
    const u = user('many');
    const subs = Array.from({ length: 21 }, () => browserSubscription());
    for (const sub of subs) expect((await stack.api('POST', '/api/push-subscriptions', { user: u, body: sub })).status).toBe(201);
    const kept = await stack.delivery.db.query<{ endpoint: string }>('select endpoint from push_subscriptions where user_id = $1', [u]);
    expect(kept.map((r) => r.endpoint).sort()).toEqual(subs.slice(1).map((s) => s.endpoint).sort());
  });
});
