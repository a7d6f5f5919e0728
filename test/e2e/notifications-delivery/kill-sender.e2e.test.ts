/**
 * The delivery service killed with SIGKILL in the middle of a batch of Telegram messages, then started again:
 * nothing is lost, and a message is sent at most once more (README, "Duplicates": Telegram takes no idempotency
 * key, so one accepted but not yet recorded when the process died goes out again). Delivery runs as its own
 * process (its main, its environment) against a local Bot API recorder that answers the first sends and holds
 * the next ones unanswered, so the kill lands while messages are in flight.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { busName, type Db, openDatabase, streamNameOf } from '@invest/platform';
import { createTestDatabase, eventually, spawnSourceMain, testNatsUrl } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, startAlertsStack } from '../support/alerts-stack.js';

const deliveryMain = fileURLToPath(new URL('../../../services/delivery/src/main.ts', import.meta.url));
const TOKEN = '123456:kill-test-token';
const USERS = 8;

/** One sendMessage the recorder received: its chat, its text, and whether it was answered. */
interface Send {
  chatId: number;
  text: string;
  answered: boolean;
}

/**
 * A Bot API for one bot (`/bot<token>/<method>`, `{"ok":true,"result":…}`): getMe, setWebhook and the like succeed;
 * sendMessage is recorded, and answered only while fewer than `answerLimit` have been.
 */
async function startBotApiRecorder() {
  const sends: Send[] = [];
  let answerLimit = Infinity;
  let answered = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const method = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      const reply = (result: unknown) => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
      };
      if (!method || method[1] !== TOKEN) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
        return;
      }
      const params = body ? (JSON.parse(body) as { chat_id?: number; text?: string }) : {};
      switch (method[2]) {
        case 'getMe':
          return reply({ id: 123456, is_bot: true, first_name: 'Kill test', username: 'kill_test_bot' });
        case 'sendMessage': {
          const send: Send = { chatId: Number(params.chat_id), text: String(params.text), answered: false };
          sends.push(send);
          const answer = () => {
            send.answered = true;
            reply({ message_id: sends.indexOf(send) + 1, date: Math.floor(Date.now() / 1000), chat: { id: send.chatId, type: 'private' }, text: send.text });
          };
          if (answered < answerLimit) {
            answered++;
            answer();
          }
          // Else held: the client waits until it is killed.
          return;
        }
        default:
          return reply(true);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sends,
    holdAfter(n: number) {
      answerLimit = n;
    },
    answerAll() {
      answerLimit = Infinity;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let stack: AlertsStack;
let recorder: Awaited<ReturnType<typeof startBotApiRecorder>>;
let db: Db;
let dropDb: () => Promise<void>;
let deliveryUrl: string;
let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
const output: string[] = [];

function startDelivery(url: string): ChildProcessByStdio<null, Readable, Readable> {
  const proc = spawnSourceMain(deliveryMain, {
    DELIVERY_DATABASE_URL: url,
    NATS_URL: testNatsUrl(),
    BUS_PREFIX: stack.busPrefix,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    PUBLIC_BASE_URL: 'https://invest.test',
    DELIVERY_GROUP_WINDOW_MS: '500',
    DELIVERY_POLL_MS: '100',
    TELEGRAM_API_URL: recorder.url,
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_WEBHOOK_SECRET: 'kill-test-webhook-secret',
  });
  for (const s of [proc.stdout, proc.stderr]) s.on('data', (b: Buffer) => output.push(b.toString()));
  return proc;
}

/** Until the process answers its health ping and its NotificationFired consumer exists. */
async function ready(): Promise<void> {
  await eventually(
    async () => {
      const ping = await stack.gw.rpc.request('delivery.health.ping', {}, { timeoutMs: 500 }).then(
        () => true,
        () => false,
      );
      if (!ping) return false;
      return stack.bus.jsm.consumers.info(streamNameOf(stack.bus, 'alerts'), busName(stack.busPrefix, 'delivery__notification-fired')).then(
        () => true,
        () => false,
      );
    },
    Boolean,
    `the delivery process ready:\n${output.join('')}`,
    60_000,
    200,
  );
}

function stop(proc: ChildProcessByStdio<null, Readable, Readable>, signal: NodeJS.Signals): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
}

beforeAll(async () => {
  stack = await startAlertsStack('dlvkill', { tickers: ['SBER'], openingRates: [{ ticker: 'SBER', rate: 100, change: 0 }] });
  recorder = await startBotApiRecorder();
  const created = await createTestDatabase('dlvkill_dlv');
  dropDb = created.drop;
  deliveryUrl = created.url;
  child = startDelivery(deliveryUrl);
  await ready();
  // Migrated by the process; the test only reads and links chats.
  db = await openDatabase({ url: created.url, migrations: [] });
}, 120_000);

afterAll(async () => {
  if (child) await stop(child, 'SIGTERM');
  await db?.close();
  await recorder?.close();
  await stack?.close();
  await dropDb?.();
});

describe('kill -9 of the delivery process mid-batch', () => {
  it('loses nothing and sends each message at most once more', async () => {
    const users = Array.from({ length: USERS }, (_, i) => ({ id: `kill-${randomUUID().slice(0, 8)}`, chatId: 7_000_000 + i }));
    for (const u of users) {
      await db.query('insert into telegram_chats (user_id, chat_id, username, linked_at) values ($1, $2, $3, now())', [u.id, u.chatId, u.id]);
      for (const target_price of [101, 102]) {
        const res = await stack.api('POST', '/api/price-alert', { user: u.id, body: { target_price, assetable: stack.share('SBER') } });
        expect(res.status, res.text).toBe(201);
      }
    }
    // The first three messages are answered; the next ones are held in flight.
    recorder.holdAfter(3);
    await stack.applyRates([{ ticker: 'SBER', rate: 103, change: 3 }]);
    await eventually(async () => recorder.sends.filter((s) => !s.answered).length, (held) => held >= 2, `sends held in flight:\n${output.join('')}`, 30_000);

    await stop(child!, 'SIGKILL');
    const atKill = recorder.sends.map((s) => ({ ...s }));
    const inFlight = new Set(atKill.filter((s) => !s.answered).map((s) => s.chatId));
    expect(atKill.filter((s) => s.answered)).toHaveLength(3);
    expect(inFlight.size).toBeGreaterThanOrEqual(2);
    // What was recorded as sent before the kill is never sent again.
    const recorded = await db.query<{ user_id: string }>("select user_id from deliveries where status = 'sent'");
    const recordedChats = new Set(recorded.map((r) => users.find((u) => u.id === r.user_id)!.chatId));

    recorder.answerAll();
    child = startDelivery(deliveryUrl);
    await ready();

    // Nothing lost: every delivery recorded as sent, and each chat got both of its firings.
    const rows = await eventually(
      () => db.query<{ user_id: string; status: string }>('select user_id, status from deliveries'),
      (r) => r.length === USERS && r.every((d) => d.status === 'sent'),
      `every delivery sent:\n${output.join('')}`,
      30_000,
    );
    expect(new Set(rows.map((r) => r.user_id))).toEqual(new Set(users.map((u) => u.id)));
    expect(await db.query('select 1 from received_firings')).toHaveLength(USERS * 2);
    for (const u of users) {
      const texts = recorder.sends.filter((s) => s.chatId === u.chatId && s.answered).map((s) => s.text);
      expect(texts.length, `chat ${u.chatId}`).toBeGreaterThanOrEqual(1);
      for (const target of ['101', '102']) expect(texts.some((t) => t.includes(target)), `chat ${u.chatId} got the ${target} target`).toBe(true);
    }

    // At most once more: a chat got a second copy only if its message was in flight at the kill, and never a third.
    const perChat = new Map<number, number>();
    for (const s of recorder.sends) perChat.set(s.chatId, (perChat.get(s.chatId) ?? 0) + 1);
    for (const [chatId, n] of perChat) {
      expect(n, `chat ${chatId}`).toBeLessThanOrEqual(2);
      if (n === 2) expect(inFlight.has(chatId) || atKill.some((s) => s.chatId === chatId), `chat ${chatId} was sent to before the kill`).toBe(true);
    }
    // Each message held at the kill was accepted by the provider but never recorded: it goes out once more.
    for (const chatId of inFlight) expect(perChat.get(chatId), `chat ${chatId}`).toBe(2);
    for (const chatId of recordedChats) expect(perChat.get(chatId), `chat ${chatId}, recorded before the kill`).toBe(1);
  }, 120_000);
});
