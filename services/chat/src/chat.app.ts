import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { EventStreams } from '@invest/contracts';
import { type Bus, busSubject, createHealthController, createLogger, type Db, type Logger, ServiceResources } from '@invest/platform';
import { createChatHandler } from './chats/chat.handler.js';
import { ChatService } from './chats/chat.service.js';
import type { OpenAiConfig } from './config/chat.config.js';
import { AnswerGenerator } from './generation/answer-generator.js';
import type { ChatModel } from './generation/chat-model.js';
import { ensureChatStreams } from './generation/chat-streams.js';
import { OfflineChatModel } from './generation/offline-chat.model.js';
import { OpenAiChatModel } from './generation/openai-chat.model.js';
import { ChatLimits } from './limits/chat-limits.js';
import { DEFAULT_TOKEN_BUDGETS, type TokenBudgets } from './limits/token-budget.js';
import { migrations } from './migrations/index.js';
import { ContextProviders } from './providers/context-providers.js';
import { ToolExecutor } from './tools/tool-executor.js';

export interface ChatAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS` (default 1): replicas of the streams this service creates or updates. */
  jetstreamReplicas?: number;
  busPrefix: string;
  logger?: Logger;
  openai: OpenAiConfig;
  /** Model overrides by context type (`*`: every provider). */
  models?: Record<string, string>;
  /** Replaces the model chosen from `openai` (tests). */
  model?: ChatModel;
  marketTz?: string;
  clock?: () => Date;
  streamMaxAgeMs?: number;
  /** How often answers left streaming by a dead instance are looked for, and how old they must be (default 60 s). */
  orphanSweepMs?: number;
  rpcTimeoutMs?: number;
  /** How long a user's entitlements are reused (default 5 s); a billing event of the user drops them at once. */
  entitlementsTtlMs?: number;
  /** On close, how long running answers may take to finish before they are abandoned (default 10 s). */
  shutdownDrainMs?: number;
  /** Daily token budgets by plan (default DEFAULT_TOKEN_BUDGETS). */
  tokenBudgets?: TokenBudgets;
  /** Tool rounds per answer at most (`CHAT_TOOL_ROUNDS`, default 3); 0 offers the model no tools. */
  toolRounds?: number;
}

export interface ChatApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  chat: ChatService;
  generator: AnswerGenerator;
  model: ChatModel;
  close(): Promise<void>;
}

/**
 * A user's billing event (payment, subscription started, cancelled, ...) drops their cached entitlements, so a
 * new plan applies to the next message. A plain subscription, not a durable consumer: a missed event only
 * means the cache entry lives out its few seconds.
 */
function forgetEntitlementsOnBillingEvents(bus: Bus, limits: ChatLimits, logger: Logger): () => void {
  const sub = bus.nc.subscribe(busSubject(bus.prefix, `${EventStreams.billing.root}.>`), {
    callback: (err, msg) => {
      if (err) return;
      try {
        const userId = (msg.json<{ data?: { userId?: unknown } }>().data ?? {}).userId;
        if (typeof userId === 'string') limits.forget(userId);
      } catch (e) {
        logger.debug({ err: e, subject: msg.subject }, 'chat: a billing event that is not JSON was ignored');
      }
    },
  });
  return () => sub.unsubscribe();
}

/** The model for a configuration: the OpenAI-compatible server with a key, else the offline responder. */
export function chatModelFor(openai: OpenAiConfig): ChatModel {
  return openai.apiKey ? new OpenAiChatModel({ ...openai, apiKey: openai.apiKey }) : new OfflineChatModel();
}

/** Boots the chat service: database, the CHAT_STREAMS replay buffer, NATS handlers, the answer generator. */
export async function createChatApp(opts: ChatAppOptions): Promise<ChatApp> {
  const logger = opts.logger ?? createLogger('chat');
  const clock = opts.clock ?? (() => new Date());
  const res = new ServiceResources(logger);
  return res.boot(async () => {
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger });
    const bus = await res.connectBus({ natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'chat', prefix: opts.busPrefix });
    await ensureChatStreams(bus, opts.streamMaxAgeMs ?? 15 * 60_000);
    const rpc = await res.connectRpc({ natsUrl: opts.natsUrl, name: 'chat-rpc', defaultTimeoutMs: opts.rpcTimeoutMs ?? 10_000, busPrefix: opts.busPrefix });

    const model = opts.model ?? chatModelFor(opts.openai);
    const generator = new AnswerGenerator({ db, bus, model, logger, clock, idleTimeoutMs: opts.openai.idleTimeoutMs });
    // Runs first on close (the stack unwinds last first): the database and the bus are still open.
    res.push(() => generator.stopAll(opts.shutdownDrainMs ?? 10_000));
    const providers = new ContextProviders(undefined, opts.models ?? {});
    const limits = new ChatLimits(rpc, {
      marketTz: opts.marketTz ?? 'Europe/Moscow',
      clock,
      logger,
      tokenBudgets: opts.tokenBudgets ?? DEFAULT_TOKEN_BUDGETS,
      ...(opts.entitlementsTtlMs ? { entitlementsTtlMs: opts.entitlementsTtlMs } : {}),
    });
    res.push(forgetEntitlementsOnBillingEvents(bus, limits, logger));
    const tools = new ToolExecutor({ rpc, logger, clock, marketTz: opts.marketTz ?? 'Europe/Moscow' });
    const chat = new ChatService({ db, bus, rpc, providers, limits, generator, clock, logger, tools, toolRounds: opts.toolRounds ?? 3 });
    res.push(chat.listenForStops());
    const sweepMs = opts.orphanSweepMs ?? 60_000;
    const sweep = setInterval(() => {
      chat.sweepOrphans(sweepMs).catch((err: unknown) => logger.warn({ err }, 'chat: the sweep of orphaned answers failed; next round retries'));
    }, sweepMs);
    sweep.unref();
    res.push(() => clearInterval(sweep));
    const app = await res.startApp([createHealthController('chat'), createChatHandler(chat)], { name: 'chat', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });

    if (model.name === 'offline') logger.warn('chat: OPENAI_API_KEY is not set; the offline responder answers (no AI)');
    logger.debug({ busPrefix: opts.busPrefix || undefined, model: model.name, baseUrl: opts.openai.baseUrl }, 'chat service started');
    return { app, db, bus, chat, generator, model, close: res.close };
  });
}
