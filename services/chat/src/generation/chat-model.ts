/** One message of what the model receives. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  /** What the offline responder says; real models ignore it. */
  offlineAnswer: string;
}

/** A piece of a streamed answer: text, and (on the last chunk that has it) the usage. */
export interface ModelChunk {
  content?: string;
  usage?: ModelUsage;
}

/**
 * A streaming chat model. Aborting `signal` must cancel the call at the model server (the HTTP request is
 * aborted); the iterator then ends, with or without an error.
 */
export interface ChatModel {
  readonly name: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;
}
