import type { DeliveryLanguage } from '@invest/contracts';
import { escapeHtml } from '@invest/platform/http/escape-html';
import type { OutgoingMessage } from '../channels/channel.js';

/** A mail's subject and its two bodies; every text a user or a notification provided is escaped in `html`. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** How long a confirmation link works after it was sent. */
export const CONFIRM_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const APP = 'Invest tracker';

const TEXTS = {
  ru: {
    open: 'Открыть в Invest tracker',
    why: 'Это письмо пришло, потому что в Invest tracker включены уведомления на этот адрес.',
    unsubscribe: 'Отписаться от писем',
    confirmSubject: 'Подтвердите адрес для уведомлений Invest tracker',
    confirmIntro: (address: string) => `Чтобы получать уведомления Invest tracker на ${address}, подтвердите адрес по ссылке:`,
    confirmButton: 'Подтвердить адрес',
    confirmNote: 'Ссылка действует 7 дней. Если вы не указывали этот адрес, не обращайте внимания на письмо: без подтверждения писем не будет.',
  },
  en: {
    open: 'Open in Invest tracker',
    why: 'You get this mail because notifications to this address are on in Invest tracker.',
    unsubscribe: 'Unsubscribe from these mails',
    confirmSubject: 'Confirm your address for Invest tracker notifications',
    confirmIntro: (address: string) => `To get Invest tracker notifications at ${address}, confirm the address with this link:`,
    confirmButton: 'Confirm the address',
    confirmNote: 'The link works for 7 days. If you did not enter this address, ignore this mail: nothing is sent until it is confirmed.',
  },
} satisfies Record<DeliveryLanguage, unknown>;


/** Escaped, with line breaks kept. */
const paragraph = (s: string) => escapeHtml(s).replace(/\r?\n/g, '<br>');

function page(language: DeliveryLanguage, title: string, body: string): string {
  return `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1f2328;background:#ffffff">
${body}
</body>
</html>
`;
}

/** A notification message (one firing, a move's several, or a digest): the title, each line, the link. */
export function renderNotificationMail(message: OutgoingMessage, unsubscribeUrl: string): RenderedMail {
  const t = TEXTS[message.language];
  const text = [message.title, '', ...message.lines.flatMap((l) => [l, '']), `${t.open}: ${message.url}`, '', '--', t.why, `${t.unsubscribe}: ${unsubscribeUrl}`, ''].join('\n');
  const lines = message.lines.map((l) => `<p style="margin:0 0 12px">${paragraph(l)}</p>`).join('\n');
  const html = page(
    message.language,
    message.title,
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(message.title)}</h1>
${lines}
<p style="margin:20px 0"><a href="${escapeHtml(message.url)}" style="color:#0b57d0">${escapeHtml(t.open)}</a></p>
<hr style="border:none;border-top:1px solid #d0d7de;margin:24px 0 12px">
<p style="margin:0;font-size:12px;color:#59636e">${escapeHtml(t.why)} <a href="${escapeHtml(unsubscribeUrl)}" style="color:#59636e">${escapeHtml(t.unsubscribe)}</a></p>`,
  );
  return { subject: message.title, text, html };
}

/** The mail that asks to confirm a new address; nothing else goes to it until its link is followed. */
export function renderConfirmationMail(language: DeliveryLanguage, address: string, confirmUrl: string): RenderedMail {
  const t = TEXTS[language];
  const text = [t.confirmIntro(address), '', confirmUrl, '', t.confirmNote, '', '--', APP, ''].join('\n');
  const html = page(
    language,
    t.confirmSubject,
    `<p style="margin:0 0 16px">${escapeHtml(t.confirmIntro(address))}</p>
<p style="margin:0 0 16px"><a href="${escapeHtml(confirmUrl)}" style="display:inline-block;padding:10px 18px;background:#0b57d0;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(t.confirmButton)}</a></p>
<p style="margin:0 0 16px;font-size:13px;word-break:break-all"><a href="${escapeHtml(confirmUrl)}">${escapeHtml(confirmUrl)}</a></p>
<p style="margin:0;font-size:12px;color:#59636e">${escapeHtml(t.confirmNote)}</p>`,
  );
  return { subject: t.confirmSubject, text, html };
}
