import { Migration } from '@invest/platform';

/**
 * The sources of an answer: the tool calls whose results the model read (`[{tool, arguments, label}]`, see
 * tools/chat-tools.ts), listed under the answer. Empty for user messages and answers that called no tool.
 */
export class ChatAnswerSources extends Migration {
  override up() {
    this.addSql(`alter table chat_messages add column sources jsonb not null default '[]'::jsonb`);
  }
}
