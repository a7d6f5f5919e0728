import type { ChatUsage } from '@invest/contracts';
import { counter, gauge, histogram } from '@invest/platform';

const openStreams = gauge('invest_chat_open_streams', 'Answers this instance is generating now (the model streaming, or its tool calls running between rounds).');

const firstChunk = histogram(
  'invest_chat_first_chunk_seconds',
  "From the question's answer being stored (the request) to the first text of the model's answer.",
  [],
  [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60],
);

const modelErrors = counter(
  'invest_chat_model_errors_total',
  'Answers the model failed: an error, a stream cut off before it finished, nothing answered, or silence past the idle timeout.',
);

const tokens = counter(
  'invest_chat_tokens_total',
  "Tokens of settled answers as the token budget records them (the model's usage; its estimate when the model reported none), by kind.",
  ['kind'],
);

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
