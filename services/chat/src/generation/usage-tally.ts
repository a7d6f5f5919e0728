import type { ChatUsage } from '@invest/contracts';
import type { ModelMessage, ModelUsage } from './chat-model.js';

const CHARS_PER_TOKEN = 4;

/** Rough token estimate (about four characters a token) when the server reports no usage. */
export function estimateUsage(request: { messages: readonly ModelMessage[] }, completion: string): ChatUsage {
  const promptChars = request.messages.reduce((n, m) => n + m.content.length, 0);
  const prompt_tokens = Math.ceil(promptChars / CHARS_PER_TOKEN);
  const completion_tokens = Math.ceil(completion.length / CHARS_PER_TOKEN);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, estimated: true };
}

/** The sum of two usages; estimated when either part was. */
export function addUsage(a: ChatUsage, b: ChatUsage): ChatUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    estimated: a.estimated || b.estimated,
  };
}

const NONE: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, estimated: false };

/**
 * What one answer cost: the sum of every model call it made (a tool round is a call of its own). Within a call the
 * last chunk that carries usage counts (a server sending running usage repeats the call's total so far); a call
 * that reported none counts its estimate.
 */
export class UsageTally {
  private ended: ChatUsage = NONE;
  private current: ChatUsage | undefined;
  private anyReported = false;

  /** Usage the model reported for the running call. */
  report(usage: ModelUsage): void {
    this.current = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens, estimated: usage.estimated ?? false };
    this.anyReported = true;
  }

  /** The running call ended; `estimate` stands for its usage when it reported none. */
  endCall(estimate: () => ChatUsage): void {
    this.ended = addUsage(this.ended, this.current ?? estimate());
    this.current = undefined;
  }

  /** The ended calls and the running call's reported usage so far. */
  total(): ChatUsage {
    return this.current ? addUsage(this.ended, this.current) : this.ended;
  }

  /** Whether any call reported usage (a failed answer with none reported cost nothing we know of). */
  get reported(): boolean {
    return this.anyReported;
  }
}
