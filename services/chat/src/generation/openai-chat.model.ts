import OpenAI from 'openai';
import type { OpenAiConfig } from '../config/chat.config.js';
import type { ChatModel, ModelChunk, ModelRequest } from './chat-model.js';

/** Streaming chat completions through the `openai` SDK against any OpenAI-compatible server. */
export class OpenAiChatModel implements ChatModel {
  readonly name = 'openai';
  private readonly client: OpenAI;

  constructor(config: OpenAiConfig & { apiKey: string }) {
    // The SDK's timeout runs until the response headers arrive: our connect timeout. Silence during the
    // body is bounded by the generator's idle timer.
    this.client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseUrl, maxRetries: config.maxRetries, timeout: config.connectTimeoutMs });
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    const stream = await this.client.chat.completions.create(
      { model: request.model, messages: request.messages, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    for await (const chunk of stream) {
      const content = chunk.choices?.[0]?.delta?.content;
      const usage = chunk.usage ?? undefined;
      const finished = !!chunk.choices?.[0]?.finish_reason;
      if (content || usage || finished) {
        yield {
          ...(content ? { content } : {}),
          ...(usage ? { usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens } } : {}),
          ...(finished ? { finished: true as const } : {}),
        };
      }
    }
  }
}
