import { z } from 'zod';

/*
 * The parts of a Telegram Update (reference §4–6) the bot reads; everything else in it is ignored. Ids are
 * JavaScript numbers: Telegram's have at most 52 significant bits.
 */

const userSchema = z.object({ id: z.number().int(), is_bot: z.boolean().optional(), username: z.string().optional(), language_code: z.string().optional() });
const chatSchema = z.object({ id: z.number().int(), type: z.string(), username: z.string().optional() });

export const telegramUpdateSchema = z.object({
  update_id: z.number().int().nonnegative(),
  message: z.object({ message_id: z.number().int(), chat: chatSchema, from: userSchema.optional(), text: z.string().optional() }).optional(),
  /** In a private chat: the user blocked (`kicked`) or unblocked (`member`) the bot. */
  my_chat_member: z.object({ chat: chatSchema, new_chat_member: z.object({ status: z.string() }) }).optional(),
  callback_query: z.object({ id: z.string(), from: userSchema }).optional(),
});
export type TelegramUpdate = z.infer<typeof telegramUpdateSchema>;

/** The RPC `delivery.telegram.update`: an update the gateway accepted (its secret header checked). */
export const telegramUpdateRequestSchema = z.object({ update: z.unknown() });

/** A command in a message: `/start abc`, `/mute@invest_bot today`. */
export interface BotCommand {
  name: string;
  arg: string | null;
}

/** The command a message's text starts with, or null for plain text. */
export function botCommand(text: string | undefined): BotCommand | null {
  const m = /^\/([A-Za-z0-9_]{1,32})(?:@\w+)?(?:\s+(\S+))?\s*$/.exec(text?.trim() ?? '');
  return m ? { name: m[1]!.toLowerCase(), arg: m[2] ?? null } : null;
}
