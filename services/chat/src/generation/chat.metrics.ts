import type { ChatUsage } from '@invest/contracts';
import { Counter, Gauge, Histogram } from 'prom-client';

// Registered once per process in prom-client's default registry; several app instances in one process (tests)
// share them.
const openStreams = new Gauge({
  name: 'invest_chat_open_streams',
  help: 'Answers this instance is generating now (the model streaming, or its tool calls running between rounds).',
});

const firstChunk = new Histogram({
  name: 'invest_chat_first_chunk_seconds',
  help: "From the question's answer being stored (the request) to the first text of the model's answer.",
  buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60],
});

const modelErrors = new Counter({
  name: 'invest_chat_model_errors_total',
  help: 'Answers the model failed: an error, a stream cut off before it finished, nothing answered, or silence past the idle timeout.',
});

const tokens = new Counter({
  name: 'invest_chat_tokens_total',
  help: "Tokens of settled answers as the token budget records them (the model's usage; its estimate when the model reported none), by kind.",
  labelNames: ['kind'] as const,
});

export function answerStarted(): void {
  openStreams.inc();
}

export function answerEnded(): void {
  openStreams.dec();
}

export function observeFirstChunk(ms: number): void {
  firstChunk.observe(Math.max(0, ms) / 1000);
}

export function countModelError(): void {
  modelErrors.inc();
}

export function countTokens(usage: ChatUsage): void {
  tokens.inc({ kind: 'prompt' }, usage.prompt_tokens);
  tokens.inc({ kind: 'completion' }, usage.completion_tokens);
}
