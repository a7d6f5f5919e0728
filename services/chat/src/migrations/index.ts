import { eventStoreMigration } from '@invest/platform';
import { ChatSchema } from './0001-chat-schema.js';

/** Every migration of the chat database, in order. Names are stable: never rename one that shipped. */
export const migrations = [eventStoreMigration, { name: '0001-chat-schema', class: ChatSchema }];
