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

/** A piece of a streamed answer: text, (on the last chunk that has it) the usage, and whether the model said it finished. */
export interface ModelChunk {
  content?: string;
  usage?: ModelUsage;
  /**
   * The model ended its answer (a `finish_reason`). A stream that ends without it was cut off (the connection
   * closed before `[DONE]`): the answer is failed, not complete.
   */
  finished?: true;
}

/**
 * A streaming chat model. Aborting `signal` must cancel the call at the model server (the HTTP request is
 * aborted); the iterator then ends, with or without an error.
 */
export interface ChatModel {
  readonly name: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk>;
}
