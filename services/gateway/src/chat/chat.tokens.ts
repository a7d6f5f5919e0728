/** The gateway's reader of streamed chat answers (CHAT_STREAMS). */
export const CHAT_STREAM_READER = Symbol('CHAT_STREAM_READER');
