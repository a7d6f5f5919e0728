/** One message of what the model receives. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** An assistant turn that called tools (OpenAI `tool_calls`). */
  toolCalls?: ModelToolCall[];
  /** A tool turn: the call it answers (OpenAI `tool_call_id`). */
  toolCallId?: string;
}

/** One whole tool call of the model (its streamed fragments put together). */
export interface ModelToolCall {
  id: string;
  name: string;
  /** The JSON text of the arguments, as the model wrote it (not trusted: the executor parses it). */
  arguments: string;
}

/** A tool offered to the model (OpenAI function tool). */
export interface ModelToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** The model did not count them (the offline responder estimates its own). */
  estimated?: boolean;
}

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  /** Tools the model may call (none: it answers in text). */
  tools?: ModelToolDefinition[];
  /** What the offline responder says; real models ignore it. */
  offlineAnswer: string;
}

/** A piece of a streamed answer: text, (on the last chunk that has it) the usage, and whether the model said it finished. */
export interface ModelChunk {
  content?: string;
  usage?: ModelUsage;
  /**
   * The model ended its answer (a `finish_reason`). A stream that ends without it was cut off (the connection
   * closed before `[DONE]`): the answer is failed, not complete.
   */
  finished?: true;
  /** The model ended its turn by calling these tools (`finish_reason: tool_calls`), given whole on the last chunk. */
  toolCalls?: ModelToolCall[];
}

/**
 * A streaming chat model. Aborting `signal` must cancel the call at the model server (the HTTP request is
 * aborted); the iterator then ends, with or without an error.
 */
export interface ChatModel {
  readonly name: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;
}
