/**
 * The web push sender against the local push service (a real HTTPS server that checks VAPID and decrypts): what a
 * browser gets, and what each answer of a push service comes to (sent, retry, permanent, the subscription deleted).
 */
import { createServer } from 'node:net';
import type { NotificationFiredV1 } from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import type { OutgoingMessage } from '../channels/channel.js';
import { migrations } from '../migrations/index.js';
import { type FakePushService, startFakePushService } from '../testing/fake-push-service.js';
import { createPushChannel, DEVELOPMENT_PUSH_CONFIG } from './push.channel.js';
import { MAX_PAYLOAD_BYTES } from './push-payload.js';
import type { PushSender } from './push.sender.js';
import { savePushSubscription } from './push-subscription.repository.js';
import { isPrivateHost, PushService } from './push.service.js';

let db: Db;
useTestDatabase('push_sender', migrations, (d) => (db = d));
let fake: FakePushService;
let sender: PushSender;
let publicKey: string;
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  fake = await startFakePushService();
  const channel = await createPushChannel({ db, config: { ...DEVELOPMENT_PUSH_CONFIG, testCa: fake.ca }, logger });
  sender = channel.sender!;
  publicKey = channel.service.key().data.public_key;
});
afterAll(async () => {
  await fake?.close();
});

let users = 0;
/** A synthetic browser of a new user, subscribed with the server's key and stored as the API stores it. */
async function subscribed(key = publicKey) {
  const userId = `push-user-${++users}`;
  const device = fake.createDevice({ applicationServerKey: key, userId });
  const { endpoint, keys } = device.subscription;
  await savePushSubscription(db, userId, { endpoint, p256dh: keys.p256dh, auth: keys.auth });
  return { userId, device, endpoint };
}

function message(userId: string, over: Partial<OutgoingMessage> = {}): OutgoingMessage {
  const firing = { firingId: 4242, userId, notificationId: 7 } as NotificationFiredV1;
  return { userId, language: 'ru', title: 'LKOH +5,2 %: 2 уведомления', lines: ['LKOH выше 7000 ₽', 'LKOH +5,2 % за день'], url: 'http://localhost:3000/notifications', digest: false, firings: [firing], ...over };
}

const stored = async (endpoint: string) => (await db.query('select 1 from push_subscriptions where endpoint = $1', [endpoint])).length;

describe('web push sender', () => {
  it('the browser gets the message encrypted: it decrypts to title, body, url and tag, signed with our VAPID key', async () => {
    const { userId, device, endpoint } = await subscribed();
    expect((await sender.addresses(db, [userId])).get(userId)).toEqual([endpoint]);

    const result = await sender.send(endpoint, message(userId));
    expect(result).toEqual({ outcome: 'sent', providerId: expect.stringMatching(new RegExp(`^${fake.url}/m/\\d+$`)) });
    const [got] = fake.received(device.id);
    expect(got?.json).toEqual({ title: 'LKOH +5,2 %: 2 уведомления', body: 'LKOH выше 7000 ₽\nLKOH +5,2 % за день', url: 'http://localhost:3000/notifications', tag: 'firing-4242' });
    expect(got).toMatchObject({ ttl: 86400, urgency: 'normal', vapid: { aud: fake.url, sub: 'mailto:dev@example.com' } });
  });

  it('404 and 410 are permanent, and deleting the subscription is what the failure does', async () => {
    for (const status of [410, 404] as const) {
      const { userId, device, endpoint } = await subscribed();
      fake.expire(device.id, status);
      const result = await sender.send(endpoint, message(userId));
      expect(result).toEqual({ outcome: 'permanent', reason: `push subscription gone (HTTP ${status}); removed` });
      expect(await stored(endpoint)).toBe(1);
      await sender.onPermanentFailure(db, userId, endpoint, result.outcome === 'permanent' ? result.reason : '');
      expect(await stored(endpoint)).toBe(0);
      expect(fake.received(device.id)).toEqual([]);
    }
  });

  it("429 and 5xx are retried, after the push service's Retry-After when it gives one", async () => {
    const { userId, device, endpoint } = await subscribed();
    fake.failNext(device.id, 429, { headers: { 'retry-after': '7' } });
    expect(await sender.send(endpoint, message(userId))).toEqual({ outcome: 'retry', reason: 'push service answered HTTP 429', afterMs: 7000 });
    fake.failNext(device.id, 503);
    expect(await sender.send(endpoint, message(userId))).toEqual({ outcome: 'retry', reason: 'push service answered HTTP 503' });
    const when = new Date(Date.now() + 60_000).toUTCString();
    fake.failNext(device.id, 500, { headers: { 'retry-after': when } });
    const dated = await sender.send(endpoint, message(userId));
    expect(dated.outcome === 'retry' && dated.afterMs).toBeGreaterThan(50_000);
    // Then the service takes it.
    expect((await sender.send(endpoint, message(userId))).outcome).toBe('sent');
    expect(fake.received(device.id)).toHaveLength(1);
  });

  it('413 and a refused signature are permanent, and the subscription stays', async () => {
    const { userId, device, endpoint } = await subscribed();
    fake.failNext(device.id, 413);
    expect(await sender.send(endpoint, message(userId))).toEqual({ outcome: 'permanent', reason: 'the message is too large for the push service (HTTP 413)' });

    // Subscribed with another application server key (ours was rotated): the service answers 403.
    const rotated = await subscribed(webpush.generateVAPIDKeys().publicKey);
    const refused = await sender.send(rotated.endpoint, message(rotated.userId));
    expect(refused).toMatchObject({ outcome: 'permanent', reason: expect.stringContaining('HTTP 403') });
    expect(fake.rejected().at(-1)).toMatchObject({ deviceId: rotated.device.id, status: 403 });
    await sender.onPermanentFailure(db, rotated.userId, rotated.endpoint, refused.outcome === 'permanent' ? refused.reason : '');
    expect(await stored(endpoint)).toBe(1);
    expect(await stored(rotated.endpoint)).toBe(1);
  });

  it('no answer (nothing listening) is retried', async () => {
    const port = await freePort();
    const endpoint = `https://127.0.0.1:${port}/push/nobody-listens`;
    const { userId, device } = await subscribed();
    await savePushSubscription(db, userId, { endpoint, ...device.subscription.keys });
    expect(await sender.send(endpoint, message(userId))).toEqual({ outcome: 'retry', reason: 'push service not reached: ECONNREFUSED' });
  });

  it('verifies the push service certificate: without the test CA the self-signed one is refused', async () => {
    const strict = (await createPushChannel({ db, config: DEVELOPMENT_PUSH_CONFIG, logger })).sender!;
    const { userId, device, endpoint } = await subscribed();
    const result = await strict.send(endpoint, message(userId));
    expect(result).toMatchObject({ outcome: 'retry', reason: expect.stringMatching(/SELF_SIGNED|CERT/) });
    expect(fake.received(device.id)).toEqual([]);
  });

  it('a subscription removed before its turn is not sent to', async () => {
    const { userId, device, endpoint } = await subscribed();
    await db.query('delete from push_subscriptions where endpoint = $1', [endpoint]);
    expect(await sender.send(endpoint, message(userId))).toEqual({ outcome: 'permanent', reason: 'the browser unsubscribed before the message was sent' });
    expect(fake.received(device.id)).toEqual([]);
  });

  it('a digest too long for one push loses lines from the end, not the title or the link', async () => {
    const { userId, device, endpoint } = await subscribed();
    const lines = Array.from({ length: 200 }, (_, i) => `SBER −${i},0 % — цена пересекла ${i} ₽ в ${i}:00`);
    expect((await sender.send(endpoint, message(userId, { lines, digest: true }))).outcome).toBe('sent');
    const got = fake.received(device.id)[0]!;
    expect(Buffer.byteLength(got.text)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const body = (got.json as { body: string }).body;
    expect(body.startsWith(`${lines[0]}\n${lines[1]}\n`)).toBe(true);
    expect(body.endsWith('\n…')).toBe(true);
    expect(got.json).toMatchObject({ title: 'LKOH +5,2 %: 2 уведомления', url: 'http://localhost:3000/notifications' });
  });
});

describe('without VAPID keys (production unconfigured)', () => {
  it('there is no sender, the key is a 503 and nothing is stored; removing still works', async () => {
    const off = await createPushChannel({ db, config: { subject: 'mailto:ops@example.org', generateKeys: false, allowPrivateEndpoints: false }, logger });
    expect(off.sender).toBeUndefined();
    expect(() => off.service.key()).toThrow(expect.objectContaining({ code: 'unavailable', message: expect.stringContaining('VAPID') }));
    const { keys } = fake.createDevice({ applicationServerKey: publicKey }).subscription;
    await expect(off.service.subscribe('off-user', { endpoint: 'https://fcm.googleapis.com/fcm/send/off', keys })).rejects.toMatchObject({ code: 'unavailable' });
    await expect(off.service.unsubscribe('off-user', { endpoint: 'https://fcm.googleapis.com/fcm/send/off' })).resolves.toEqual({ deleted: false });
    expect(await db.query('select 1 from push_subscriptions where user_id = $1', ['off-user'])).toEqual([]);
  });
});

describe('private endpoints', () => {
  it('names of this machine and private addresses are caught; public names and addresses are not', () => {
    for (const host of ['localhost', 'a.localhost', '127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '[::1]', '[fd00::1]', '[::ffff:127.0.0.1]']) {
      expect(isPrivateHost(host), host).toBe(true);
    }
    for (const host of ['fcm.googleapis.com', 'updates.push.services.mozilla.com', '8.8.8.8', '[2001:4860:4860::8888]']) expect(isPrivateHost(host), host).toBe(false);
  });

  it('production refuses to store a subscription whose endpoint is on this machine (422), and stores a public one', async () => {
    const production = new PushService({ db, vapid: webpush.generateVAPIDKeys(), allowPrivateEndpoints: false });
    const { keys } = fake.createDevice({ applicationServerKey: publicKey }).subscription;
    const local = { endpoint: `${fake.url}/push/abc`, keys };
    await expect(production.subscribe('prod-user', local)).rejects.toMatchObject({ code: 'validation_failed', errors: { endpoint: [expect.stringContaining('public')] } });
    await expect(production.subscribe('prod-user', { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys })).resolves.toMatchObject({ data: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc' } });
    expect(await db.query('select endpoint from push_subscriptions where user_id = $1', ['prod-user'])).toEqual([{ endpoint: 'https://fcm.googleapis.com/fcm/send/abc' }]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
