import { CHAT_STREAMS } from '@invest/contracts';
import { type Bus, busName, busSubject, ensureStream } from '@invest/platform';
import { DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';

/** Stream name of CHAT_STREAMS in this environment (stream names allow no dots). */
export function chatStreamsName(prefix: string): string {
  return busName(prefix, CHAT_STREAMS.stream);
}

/**
 * Creates (or updates) the replay buffer of streamed answers: `chat.stream.<messageId>`, memory storage
 * (answers are also in Postgres; this only has to outlive a dropped connection), a short max age.
 */
export async function ensureChatStreams(bus: Bus, maxAgeMs: number): Promise<string> {
  const name = chatStreamsName(bus.prefix);
  const config = {
    name,
    subjects: [busSubject(bus.prefix, `${CHAT_STREAMS.root}.>`)],
    retention: RetentionPolicy.Limits,
    storage: StorageType.Memory,
    discard: DiscardPolicy.Old,
    max_age: maxAgeMs * 1_000_000,
    max_bytes: 256 * 1024 * 1024,
  };
  await ensureStream(bus, config);
  return name;
}
