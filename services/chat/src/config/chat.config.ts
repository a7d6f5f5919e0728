import { baseConfigSchema, loadConfigOrExit, postgresUrl, type ServiceBaseConfig, serviceBaseConfig } from '@invest/platform/config/load-config';
import { z } from 'zod';
import type { TokenBudgets } from '../limits/token-budget.js';

/** A positive number of tokens a day, or `unlimited` (null). */
const tokenBudget = (name: string) =>
  z
    .union([z.literal('unlimited'), z.coerce.number({ error: `${name} must be a number or unlimited` }).int(`${name} must be an integer`).positive(`${name} must be > 0`)])
    .transform((v) => (v === 'unlimited' ? null : v));

const positiveInt = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).positive(`${name} must be > 0`);

/** Environment of the chat service; every variable is named when its value is bad. */
export const chatEnvSchema = baseConfigSchema.extend({
  DATABASE_URL: postgresUrl.optional(),
  CHAT_DATABASE_URL: postgresUrl.optional(),
  BUS_PREFIX: z.string().default(''),
  /** Any OpenAI-compatible server. Without OPENAI_API_KEY the built-in offline responder answers. */
  OPENAI_BASE_URL: z.string().url('OPENAI_BASE_URL must be a URL').default('https://api.openai.com/v1'),
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** Model of every provider unless a per-provider override is set. */
  CHAT_MODEL: z.string().min(1).optional(),
  CHAT_MODEL_PORTFOLIO_HEALTH: z.string().min(1).optional(),
  CHAT_MODEL_SUPPORT: z.string().min(1).optional(),
  /** Until the model server answers with headers (the SDK's timeout). */
  OPENAI_CONNECT_TIMEOUT_MS: positiveInt('OPENAI_CONNECT_TIMEOUT_MS').default(30_000),
  /** Longest silence between two chunks before the call is abandoned as failed. */
  OPENAI_IDLE_TIMEOUT_MS: positiveInt('OPENAI_IDLE_TIMEOUT_MS').default(60_000),
  OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).default(1),
  /** How long streamed answers stay replayable on CHAT_STREAMS. */
  CHAT_STREAM_MAX_AGE_MS: positiveInt('CHAT_STREAM_MAX_AGE_MS').default(15 * 60_000),
  /** How often answers left `streaming` by a dead instance are settled as failed, and how old they must be. */
  CHAT_ORPHAN_SWEEP_MS: positiveInt('CHAT_ORPHAN_SWEEP_MS').default(60_000),
  /** Tokens a user may spend a `MARKET_TZ` day, all contexts (limits/token-budget.ts): free plan, and paid access. */
  CHAT_DAILY_TOKENS_FREE: tokenBudget('CHAT_DAILY_TOKENS_FREE').default(100_000),
  CHAT_DAILY_TOKENS_PAID: tokenBudget('CHAT_DAILY_TOKENS_PAID').default(2_000_000),
  /** Tool rounds (the model reading the user's data) per answer at most; 0 offers no tools. */
  CHAT_TOOL_ROUNDS: z.coerce.number({ error: 'CHAT_TOOL_ROUNDS must be a number' }).int('CHAT_TOOL_ROUNDS must be an integer').min(0, 'CHAT_TOOL_ROUNDS must be >= 0').max(10, 'CHAT_TOOL_ROUNDS must be <= 10').default(3),
});
export type ChatEnv = z.infer<typeof chatEnvSchema>;

export interface OpenAiConfig {
  baseUrl: string;
  /** Absent: the offline responder answers. */
  apiKey?: string;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  maxRetries: number;
}

export interface ChatConfig extends ServiceBaseConfig {
  marketTz: string;
  openai: OpenAiConfig;
  /** Model per context type (overrides of the providers' defaults); `*` applies to every provider. */
  models: Record<string, string>;
  streamMaxAgeMs: number;
  orphanSweepMs: number;
  toolRounds: number;
  /** Daily token budgets by plan (null: unlimited). */
  tokenBudgets: TokenBudgets;
}

export function chatConfigFrom(env: ChatEnv): ChatConfig {
  const models: Record<string, string> = {};
  if (env.CHAT_MODEL) models['*'] = env.CHAT_MODEL;
  if (env.CHAT_MODEL_PORTFOLIO_HEALTH) models.portfolio_health = env.CHAT_MODEL_PORTFOLIO_HEALTH;
  if (env.CHAT_MODEL_SUPPORT) models.support = env.CHAT_MODEL_SUPPORT;
  return {
    ...serviceBaseConfig('chat', env),
    marketTz: env.MARKET_TZ,
    openai: {
      baseUrl: env.OPENAI_BASE_URL,
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
      connectTimeoutMs: env.OPENAI_CONNECT_TIMEOUT_MS,
      idleTimeoutMs: env.OPENAI_IDLE_TIMEOUT_MS,
      maxRetries: env.OPENAI_MAX_RETRIES,
    },
    models,
    streamMaxAgeMs: env.CHAT_STREAM_MAX_AGE_MS,
    orphanSweepMs: env.CHAT_ORPHAN_SWEEP_MS,
    tokenBudgets: { free: env.CHAT_DAILY_TOKENS_FREE, paid: env.CHAT_DAILY_TOKENS_PAID },
    toolRounds: env.CHAT_TOOL_ROUNDS,
  };
}

export function loadChatConfigOrExit(): ChatConfig {
  return chatConfigFrom(loadConfigOrExit(chatEnvSchema, 'chat'));
}
