import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatModel, ModelChunk, ModelRequest } from './chat-model.js';
import { estimateUsage } from './usage-tally.js';

/**
 * The built-in responder used when no model key is configured: streams the provider's offline answer
 * (built from the real context data) word by word, so a development setup shows a working chat. It ends, as a model
 * does, with its usage: the estimate a real model of its prompt and answer would cost (four characters a token,
 * marked estimated), so the token budget works the same offline.
 */
export class OfflineChatModel implements ChatModel {
  readonly name = 'offline';
  constructor(private readonly delayMs = 15) {}

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    const pieces = request.offlineAnswer.match(/\S+\s*/g) ?? [];
    for (const piece of pieces) {
      if (signal.aborted) return;
      if (this.delayMs > 0) await sleep(this.delayMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return;
      yield { content: piece };
    }
    yield { finished: true };
    yield { usage: estimateUsage(request, request.offlineAnswer) };
  }
}
