/**
 * `npm run bench -- delivery [--users 500] [--runs 3] [--telegram-per-second 1000]`
 *
 * A rate batch that fires 2 price-targets of each of `--users` users (1,000 notifications for 500 users), through
 * the alerts and delivery services as `npm start` runs them (their mains, their own databases, one bus prefix),
 * to the local Telegram Bot API (in this process). Per run, from the batch's publish:
 *   - in-app (the baseline): each user's first `NotificationFired` as a subscriber of ALERTS_EVENTS hears it;
 *   - Telegram: each user's first message as the stand-in receives it.
 * Printed: p50/p99/max of both, messages per user (one per move: the user's two firings are one message), and
 * the least gap between two messages to one chat (Telegram's per-chat pace: one a second). The bot sends paid
 * broadcasts (`TELEGRAM_MAX_PER_SECOND` 1000, Telegram's limit for them): without them Telegram allows about 30
 * messages a second over all chats, and 500 users' first messages take at least ~17 s whatever the service does
 * (`--telegram-per-second 30` shows it). A warm-up batch comes first, printed and not counted.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type BusEvent, eventSubject, MarketEventTypes, type RateChange, type RatesUpdatedV1 } from '@invest/contracts';
import { type Bus, busName, busSubject, connectBus, createLogger, openDatabase, streamNameOf } from '@invest/platform';
import { testNatsUrl, testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import { migrations as alertsMigrations } from '@invest/alerts/migrations/index';
import { RATES_UPDATED_DURABLE } from '@invest/alerts/rates/rates-updated.consumer';
import { NOTIFICATION_FIRED_DURABLE } from '@invest/delivery/dispatch/notification-fired.consumer';
import { migrations as deliveryMigrations } from '@invest/delivery/migrations/index';
import { startFakeTelegram } from '@invest/delivery/testing/fake-telegram';
import { numberArg } from './support/args.js';
import { percentile } from './support/percentile.js';
import { repoRoot, startNode, stop } from './support/processes.js';

const TOKEN = '123456:bench-token';
const SECRET = 'bench-webhook-secret-0123456789';
const ASSETS = [
  { id: 9001, ticker: 'LKOH' },
  { id: 9002, ticker: 'SBER' },
];
const CHAT0 = 700_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const summary = (ms: number[]) => `p50 ${percentile(ms, 50).toFixed(0)} ms   p99 ${percentile(ms, 99).toFixed(0)} ms   max ${percentile(ms, 100).toFixed(0)} ms   (${ms.length} users)`;

export async function run(args: string[]): Promise<void> {
  const users = numberArg(args, 'users', 500);
  const runs = numberArg(args, 'runs', 3);
  const perSecond = numberArg(args, 'telegram-per-second', 1000);
  const logger = createLogger('bench-delivery', 'warn');
  const natsUrl = testNatsUrl();
  const prefix = `${uniqueName('bench_delivery')}.`;
  const alertsUrl = testPostgresUrl(uniqueName('bench_delivery_alerts'));
  const deliveryUrl = testPostgresUrl(uniqueName('bench_delivery_delivery'));
  const alertsDb = await openDatabase({ url: alertsUrl, migrations: alertsMigrations, logger, poolMax: 2 });
  const deliveryDb = await openDatabase({ url: deliveryUrl, migrations: deliveryMigrations, logger, poolMax: 2 });
  const telegram = await startFakeTelegram({ token: TOKEN, botUsername: 'bench_bot' });
  const bus = await connectBus({ natsUrl, name: 'bench-delivery', prefix });
  const children: ReturnType<typeof startNode>[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    // --- seed: two price-targets per user (one per asset), each user's chat linked --------------------------
    const now = new Date();
    await alertsDb.query(
      `insert into latest_rates (asset_type, asset_id, ticker, rate, change_24h, as_of, observed_at)
       select 'share', a.id, a.ticker, 100, 0, $1, $1 from unnest($2::bigint[], $3::text[]) as a(id, ticker)`,
      [now, ASSETS.map((a) => a.id), ASSETS.map((a) => a.ticker)],
    );
    await alertsDb.query(
      `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
       select 'bench-' || u, 2, 'asset', a.id, 'share', '>=', 100.5, 100.5, null, $1, $1 from generate_series(1, $2::int) u, unnest($3::bigint[]) as a(id)`,
      [now, users, ASSETS.map((a) => a.id)],
    );
    await deliveryDb.query(
      `insert into telegram_chats (user_id, chat_id, username, linked_at) select 'bench-' || u, $1::bigint + u, 'u' || u, $2 from generate_series(1, $3::int) u`,
      [CHAT0, now, users],
    );

    // Each user has pressed Start in the bot (Telegram knows a chat only then). Their updates go to a webhook that
    // only says 200: the bench seeded the links above, so the gateway is not needed.
    const webhook = createServer((req, res) => req.resume().on('end', () => res.end('{}')));
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => webhook.close(() => resolve())));
    const webhookBase = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;

    // --- the services ---------------------------------------------------------------------------------------
    const env = { NATS_URL: natsUrl, BUS_PREFIX: prefix, NODE_ENV: 'development' };
    children.push(startNode(join(repoRoot, 'services/alerts/dist/main.js'), { ...env, ALERTS_DATABASE_URL: alertsUrl, ALERTS_JOBS_ENABLED: 'false' }, 'alerts'));
    children.push(
      startNode(
        join(repoRoot, 'services/delivery/dist/main.js'),
        { ...env, DELIVERY_DATABASE_URL: deliveryUrl, TELEGRAM_API_URL: telegram.url, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_MAX_PER_SECOND: String(perSecond), PUBLIC_BASE_URL: webhookBase },
        'delivery',
      ),
    );
    const firstFired = new Map<string, number>();
    let t0 = 0;
    const sub = bus.nc.subscribe(busSubject(prefix, eventSubject('alerts', 'NotificationFired')), {
      callback: (err, msg) => {
        if (err) return;
        const userId = msg.json<BusEvent<{ userId: string }>>().data.userId;
        if (!firstFired.has(userId)) firstFired.set(userId, performance.now() - t0);
      },
    });
    // Both consume once their durables wait for messages; the bot set its webhook once delivery is up.
    const until = Date.now() + 120_000;
    while (!telegram.webhook() || !(await consumersWaiting(bus, prefix))) {
      for (const c of children) if (c.exitCode !== null) throw new Error(`a service exited:\n${c.output.join('')}`);
      if (Date.now() > until) throw new Error(`the services did not start:\n${children.map((c) => c.output.join('')).join('\n')}`);
      await sleep(200);
    }

    for (let u = 1; u <= users; u++) await telegram.userSays(CHAT0 + u, '/start', { username: `u${u}` });

    const publish = async (rate: number) => {
      const asOf = new Date().toISOString();
      const rates: RateChange[] = ASSETS.map((a) => ({ assetType: 'share', assetId: a.id, ticker: a.ticker, currency: 'RUB', rate, priceChangePercentage24h: rate - 100, asOf }));
      const event: BusEvent<RatesUpdatedV1> = { id: randomUUID(), type: MarketEventTypes.RatesUpdated, streamName: 'rates-share', streamPosition: 0, recordedAt: asOf, data: { version: 1, source: 'bench', rates }, metadata: {} };
      await bus.js.publish(busSubject(prefix, eventSubject('market', MarketEventTypes.RatesUpdated)), JSON.stringify(event), { msgID: event.id });
    };

    const inApp: number[] = [];
    const toTelegram: number[] = [];
    let perUser = 0;
    let leastGap = Infinity;
    // Run 0 warms both services up (JIT, pooled connections, the pacer's first chats): the first batch after a
    // start. It is printed but not counted; a running service meets a rate batch a minute.
    for (let r = 0; r <= runs; r++) {
      // Every target armed again (a new cycle: a firing per run), below the rate of the batch to come.
      await alertsDb.query("update notifications set is_active = true, cycle = cycle + 1, last_triggered_at = null where user_id like 'bench-%'");
      await publish(100);
      await sleep(500);
      const before = new Map(telegram.chats().map((c) => [c.id, c.received.length]));
      firstFired.clear();
      t0 = performance.now();
      const wall0 = Date.now();
      await publish(101);
      const deadline = Date.now() + numberArg(args, 'timeout', 180) * 1000;
      const got = () => telegram.chats().filter((c) => c.id > CHAT0 && c.received.length > (before.get(c.id) ?? 0));
      while (got().length < users || firstFired.size < users) {
        if (Date.now() > deadline) throw new Error(`run ${r}: ${got().length} of ${users} chats got a message, ${firstFired.size} users fired, in 180 s:\n${children.map((c) => c.output.join('')).join('\n')}`);
        await sleep(50);
      }
      // What else comes within a second belongs to the run (a second message per user would break "one per move").
      await sleep(1000);
      const fired = [...firstFired.values()];
      const telegramMs = got().map((c) => c.received[before.get(c.id) ?? 0]!.at - wall0);
      const messages = got().reduce((n, c) => n + c.received.length - (before.get(c.id) ?? 0), 0);
      const paid = got().reduce((n, c) => n + c.received.slice(before.get(c.id) ?? 0).filter((m) => m.paid_broadcast).length, 0);
      for (const c of got()) for (let i = 1; i < c.received.length; i++) leastGap = Math.min(leastGap, c.received[i]!.at - c.received[i - 1]!.at);
      // Where the time goes: the firings recorded by delivery's consumer, the messages sealed and sent.
      const [phases] = await deliveryDb.query<{ recorded: number; sealed: number; sent: number }>(
        `select extract(epoch from max(f.received_at) - $1::timestamptz) * 1000 as recorded,
                (select extract(epoch from max(sealed_at) - $1::timestamptz) * 1000 from message_groups where opened_at >= $1) as sealed,
                (select extract(epoch from max(sent_at) - $1::timestamptz) * 1000 from deliveries where sent_at >= $1) as sent
           from received_firings f where f.received_at >= $1`,
        [new Date(wall0)],
      );
      console.log(`${r === 0 ? 'warm-up (not counted)' : `run ${r}`}: in-app NotificationFired ${summary(fired)}`);
      console.log(`       delivery: last firing recorded ${Number(phases?.recorded).toFixed(0)} ms, last group sealed ${Number(phases?.sealed).toFixed(0)} ms, last message sent ${Number(phases?.sent).toFixed(0)} ms after the publish`);
      console.log(`       Telegram first message   ${summary(telegramMs)}; ${messages} messages to ${users} chats, ${paid} as paid broadcasts`);
      perUser = Math.max(perUser, messages / users);
      if (r === 0) continue;
      inApp.push(...fired);
      toTelegram.push(...telegramMs);
    }
    sub.unsubscribe();
    console.log(`\n${runs} runs after the warm-up, ${users} users, 2 firings each per run; Telegram pacing ≤1 message/s per chat, ≤${perSecond}/s overall`);
    console.log('figure                                       p50        p99        max');
    const row = (name: string, ms: number[]) =>
      console.log(`${name.padEnd(44)} ${percentile(ms, 50).toFixed(0).padStart(6)} ms ${percentile(ms, 99).toFixed(0).padStart(7)} ms ${percentile(ms, 100).toFixed(0).padStart(7)} ms`);
    row('in-app NotificationFired (baseline)', inApp);
    row('Telegram, first message of each user', toTelegram);
    console.log(`messages per user per run: ${perUser.toFixed(2)} (one per move: 1.00); least gap between two messages to one chat: ${Number.isFinite(leastGap) ? `${leastGap} ms` : 'none (one message each)'}`);
    const p99 = percentile(toTelegram, 99);
    console.log(`Telegram p99 ${(p99 / 1000).toFixed(2)} s: target ≤ 1 s → ${p99 <= 1000 ? 'met' : 'NOT met'}${perSecond <= 30 && users > perSecond ? ` (≥ ${(users / perSecond).toFixed(1)} s is Telegram's overall limit for ${users} chats)` : ''}`);
  } finally {
    await Promise.all(children.map((c) => stop(c)));
    for (const close of closers) await close();
    await bus.close();
    await telegram.close();
    await alertsDb.close();
    await deliveryDb.close();
  }
}

/** True once alerts' RatesUpdated and delivery's NotificationFired durables wait for messages. */
async function consumersWaiting(bus: Bus, prefix: string): Promise<boolean> {
  const waiting = await Promise.all(
    [
      [streamNameOf(bus, 'market'), RATES_UPDATED_DURABLE],
      [streamNameOf(bus, 'alerts'), NOTIFICATION_FIRED_DURABLE],
    ].map(async ([stream, durable]) => ((await bus.jsm.consumers.info(stream!, busName(prefix, durable!)).catch(() => undefined))?.num_waiting ?? 0) > 0),
  );
  return waiting.every(Boolean);
}
