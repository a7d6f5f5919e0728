import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatModel, ModelChunk, ModelRequest } from './chat-model.js';

/**
 * The built-in responder used when no model key is configured: streams the provider's offline answer
 * (built from the real context data) word by word, so a development setup shows a working chat.
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
  }
}
