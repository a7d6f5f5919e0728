import OpenAI from 'openai';
import type { OpenAiConfig } from '../config/chat.config.js';
import type { ChatModel, ModelChunk, ModelMessage, ModelRequest, ModelToolCall } from './chat-model.js';

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
      {
        model: request.model,
        messages: request.messages.map(toOpenAiMessage),
        ...(request.tools?.length ? { tools: request.tools } : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal },
    );
    // Tool calls stream as fragments keyed by `index`: the first names the id and function, later ones append to
    // the arguments (shared/reference/openai-streaming.md). They are handed on whole, with the finish.
    const calls = new Map<number, ModelToolCall>();
    for await (const chunk of stream) {
      const choice = chunk.choices?.[0];
      const content = choice?.delta?.content;
      for (const f of choice?.delta?.tool_calls ?? []) {
        const call = calls.get(f.index) ?? { id: '', name: '', arguments: '' };
        if (f.id) call.id = f.id;
        if (f.function?.name) call.name += f.function.name;
        if (f.function?.arguments) call.arguments += f.function.arguments;
        calls.set(f.index, call);
      }
      const usage = chunk.usage ?? undefined;
      const finished = !!choice?.finish_reason;
      const toolCalls = finished && choice?.finish_reason === 'tool_calls' && calls.size > 0 ? [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c) : undefined;
      if (content || usage || finished) {
        yield {
          ...(content ? { content } : {}),
          ...(usage ? { usage: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens } } : {}),
          ...(finished ? { finished: true as const } : {}),
          ...(toolCalls ? { toolCalls } : {}),
        };
      }
    }
  }
}

function toOpenAiMessage(m: ModelMessage): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_call_id: m.toolCallId ?? '' };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    };
  }
  return { role: m.role, content: m.content };
}
