import { loadConfig } from '@invest/platform/config/load-config';
import { describe, expect, it } from 'vitest';
import { chatConfigFrom, chatEnvSchema } from './chat.config.js';

const load = (env: Record<string, string>) => chatConfigFrom(loadConfig(chatEnvSchema, env));

describe('chat configuration', () => {
  it('defaults: OpenAI base URL, no key (offline responder), timeouts, no model overrides', () => {
    const c = load({});
    expect(c.openai).toEqual({ baseUrl: 'https://api.openai.com/v1', connectTimeoutMs: 30_000, idleTimeoutMs: 60_000, maxRetries: 1 });
    expect(c.models).toEqual({});
    expect(c.databaseUrl).toMatch(/\/invest_chat$/);
  });

  it('reads the key, base URL, per-provider models and timeouts', () => {
    const c = load({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', CHAT_MODEL: 'm', CHAT_MODEL_SUPPORT: 's', OPENAI_IDLE_TIMEOUT_MS: '5000' });
    expect(c.openai).toMatchObject({ apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:8000/v1', idleTimeoutMs: 5000 });
    expect(c.models).toEqual({ '*': 'm', support: 's' });
  });

  it('reads the daily token budgets by plan; unlimited is null', () => {
    expect(load({}).tokenBudgets).toEqual({ free: 100_000, paid: 2_000_000 });
    expect(load({ CHAT_DAILY_TOKENS_FREE: '5000', CHAT_DAILY_TOKENS_PAID: 'unlimited' }).tokenBudgets).toEqual({ free: 5000, paid: null });
    expect(() => load({ CHAT_DAILY_TOKENS_FREE: '0' })).toThrow(/CHAT_DAILY_TOKENS_FREE/);
  });

  it('reads the tool rounds per answer: 3 by default, 0 offers no tools, at most 10', () => {
    expect(load({}).toolRounds).toBe(3);
    expect(load({ CHAT_TOOL_ROUNDS: '0' }).toolRounds).toBe(0);
    expect(() => load({ CHAT_TOOL_ROUNDS: '11' })).toThrow(/CHAT_TOOL_ROUNDS/);
    expect(() => load({ CHAT_TOOL_ROUNDS: '-1' })).toThrow(/CHAT_TOOL_ROUNDS/);
  });

  it('names a bad variable', () => {
    expect(() => load({ OPENAI_CONNECT_TIMEOUT_MS: 'soon' })).toThrow(/OPENAI_CONNECT_TIMEOUT_MS/);
  });
});
