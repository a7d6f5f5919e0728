import type { DeliveryLanguage } from '@invest/contracts';
import type { OutgoingMessage } from '../channels/channel.js';
import type { SendMessageParams } from './telegram.client.js';

/** Telegram's limit on a message's text after its HTML is parsed (reference §3). */
export const TELEGRAM_TEXT_MAX = 4096;

/** Text for Telegram's HTML parse mode: the three characters it reads as markup, escaped (reference §3). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const OPEN: Record<DeliveryLanguage, string> = { ru: 'Открыть', en: 'Open' };
const MORE: Record<DeliveryLanguage, (n: number) => string> = {
  ru: (n) => `…и ещё ${n}`,
  en: (n) => `…and ${n} more`,
};

/**
 * A notification as a Telegram message: the title in bold and each line below it, everything from the
 * notification escaped, and one button that opens its page. Lines that would pass Telegram's 4096 characters
 * are left out with a "…and N more" (the page has them all).
 */
export function telegramMessage(chatId: number, message: OutgoingMessage): SendMessageParams {
  const title = message.title.slice(0, 1000);
  const lines: string[] = [];
  // Counted as the plain text Telegram measures: the title, a blank line, the lines and room for "…and N more".
  let length = title.length + 2 + 40;
  for (const [i, line] of message.lines.entries()) {
    if (length + line.length + 1 > TELEGRAM_TEXT_MAX) {
      lines.push(MORE[message.language](message.lines.length - i));
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  const text = [`<b>${escapeHtml(title)}</b>`, ...(lines.length ? ['', ...lines.map(escapeHtml)] : [])].join('\n');
  return {
    chat_id: chatId,
    text,
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
    reply_markup: { inline_keyboard: [[{ text: OPEN[message.language], url: message.url }]] },
  };
}
