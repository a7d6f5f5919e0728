import { eventStoreMigration, IdempotencyKeysMigration } from '@invest/platform';
import { ChatSchema } from './0001-chat-schema.js';
import { OneChatPerContext } from './0005-one-health-chat.js';
import { ChatTokenUsage } from './0003-token-usage.js';
import { ChatAnswerSources } from './0004-answer-sources.js';

/** `idempotency_keys` (platform's `idempotent`): the Idempotency-Key of a send. */
class ChatIdempotencyKeys extends IdempotencyKeysMigration {}

/** Every migration of the chat database, in order. Names are stable: never rename one that shipped. */
export const migrations = [
  eventStoreMigration,
  { name: '0001-chat-schema', class: ChatSchema },
  { name: '0002-idempotency-keys', class: ChatIdempotencyKeys },
  { name: '0003-token-usage', class: ChatTokenUsage },
  { name: '0004-answer-sources', class: ChatAnswerSources },
  { name: '0005-one-chat-per-context', class: OneChatPerContext },
];
