import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DeliverySubjects, type DeliveryLanguage, type EmailConfirmReply, type EmailUnsubscribeReply, emailTokenSchema } from '@invest/contracts';
import { escapeHtml } from '@invest/platform/http/escape-html';
import type { RpcClient } from '@invest/platform/rpc/rpc-client';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { localeFromAcceptLanguage } from '../i18n/accept-language.js';

/** Where the one-click unsubscribe (RFC 8058) is posted: `<prefix><token>`. */
export const UNSUBSCRIBE_PATH_PREFIX = '/api/email/unsubscribe/';
/** A one-click body is `List-Unsubscribe=One-Click` and a multipart boundary or two. */
const ONE_CLICK_BODY_LIMIT = 16 * 1024;

/**
 * The links in the service's mails, opened by whoever holds them (no sign-in; the token in the link is the
 * authority): confirming an address, and unsubscribing. A GET never unsubscribes (mail scanners fetch every
 * link of a mail): it shows a page whose button posts, as a mailbox provider's one-click POST does. The
 * pages are in the user's language (the browser's when the link names nobody), load nothing, and send no
 * Referer (the token is in the URL).
 */
export function createEmailController({ rpc }: { rpc: RpcClient }) {
  @ApiTags('e-mail links')
  @Controller('api/email')
  class EmailController {
    @Get('confirm')
    @ApiOperation({
      summary: 'Confirm an e-mail address (the link of the confirmation mail)',
      description: 'An HTML page. Following the link again still says confirmed; a link of an address changed since, or older than 7 days, does not confirm.',
    })
    @ApiQuery({ name: 'token', required: true, description: 'The token of the confirmation mail.' })
    @ApiProduces('text/html')
    @ApiResponse({ status: 200, description: 'Confirmed.' })
    @ApiResponse({ status: 404, description: 'Unknown link.' })
    @ApiResponse({ status: 410, description: 'The link is older than 7 days: enter the address again in settings.' })
    async confirm(@Query('token') token: unknown, @Headers('accept-language') acceptLanguage: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
      const parsed = emailTokenSchema.safeParse(token);
      const result: EmailConfirmReply['data'] = parsed.success
        ? (await rpc.request<EmailConfirmReply>(DeliverySubjects.emailConfirm, { token: parsed.data })).data
        : { status: 'invalid', language: null };
      const lang = result.language ?? localeFromAcceptLanguage(acceptLanguage);
      const t = TEXTS[lang];
      const status = result.status === 'confirmed' ? 200 : result.status === 'expired' ? 410 : 404;
      const [title, text] = result.status === 'confirmed' ? t.confirmed : result.status === 'expired' ? t.confirmExpired : t.confirmInvalid;
      return htmlPage(reply, status, lang, title, `<p>${escapeHtml(text)}</p>`);
    }

    @Get('unsubscribe/:token')
    @ApiOperation({
      summary: 'The unsubscribe link of a mail: a page with a button (changes nothing)',
      description: 'Scanners fetch the links of a mail, so a GET only shows whether e-mail is on and a button that posts the one-click form.',
    })
    @ApiParam({ name: 'token', description: 'The unsubscribe token of the mail (its List-Unsubscribe header).' })
    @ApiProduces('text/html')
    @ApiResponse({ status: 200, description: 'The page.' })
    @ApiResponse({ status: 404, description: 'Unknown link.' })
    async unsubscribePage(@Param('token') token: string, @Headers('accept-language') acceptLanguage: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
      const result = await unsubscribeRpc(rpc, DeliverySubjects.emailUnsubscribeView, token);
      const lang = result.language ?? localeFromAcceptLanguage(acceptLanguage);
      const t = TEXTS[lang];
      if (result.status === 'invalid') return htmlPage(reply, 404, lang, t.unsubscribeInvalid[0], `<p>${escapeHtml(t.unsubscribeInvalid[1])}</p>`);
      if (result.status === 'unsubscribed') return htmlPage(reply, 200, lang, t.unsubscribed[0], `<p>${escapeHtml(t.unsubscribed[1](result.address ?? ''))}</p>`);
      return htmlPage(
        reply,
        200,
        lang,
        t.unsubscribeAsk[0],
        `<p>${escapeHtml(t.unsubscribeAsk[1](result.address ?? ''))}</p>
<form method="post" action="${escapeHtml(UNSUBSCRIBE_PATH_PREFIX + token)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${escapeHtml(t.unsubscribeButton)}</button></form>`,
      );
    }

    @Post('unsubscribe/:token')
    @ApiOperation({
      summary: 'One-click unsubscribe (RFC 8058): turns e-mail notifications off',
      description:
        'Posted by a mailbox provider (no cookies, no sign-in) or by the button of the GET page. The body must be `List-Unsubscribe=One-Click`, ' +
        'form-urlencoded or multipart/form-data. Turns the e-mail channel off in the settings (the address stays; settings turn it on again). Never redirects.',
    })
    @ApiParam({ name: 'token', description: 'The unsubscribe token of the mail (its List-Unsubscribe header).' })
    @ApiConsumes('application/x-www-form-urlencoded', 'multipart/form-data')
    @ApiProduces('text/html')
    @ApiResponse({ status: 200, description: 'E-mail notifications are off (also when they already were).' })
    @ApiResponse({ status: 400, description: 'The body is not `List-Unsubscribe=One-Click`.' })
    @ApiResponse({ status: 404, description: 'Unknown link.' })
    async unsubscribe(@Param('token') token: string, @Body() body: unknown, @Headers('accept-language') acceptLanguage: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
      const browser = localeFromAcceptLanguage(acceptLanguage);
      if (!emailTokenSchema.safeParse(token).success) return htmlPage(reply, 404, browser, TEXTS[browser].unsubscribeInvalid[0], `<p>${escapeHtml(TEXTS[browser].unsubscribeInvalid[1])}</p>`);
      if (!isOneClick(body)) return htmlPage(reply, 400, browser, TEXTS[browser].badRequest[0], `<p>${escapeHtml(TEXTS[browser].badRequest[1])}</p>`);
      const result = await unsubscribeRpc(rpc, DeliverySubjects.emailUnsubscribe, token);
      const lang = result.language ?? browser;
      const t = TEXTS[lang];
      if (result.status === 'invalid') return htmlPage(reply, 404, lang, t.unsubscribeInvalid[0], `<p>${escapeHtml(t.unsubscribeInvalid[1])}</p>`);
      return htmlPage(reply, 200, lang, t.unsubscribed[0], `<p>${escapeHtml(t.unsubscribed[1](result.address ?? ''))}</p>`);
    }
  }
  return EmailController;
}

async function unsubscribeRpc(rpc: RpcClient, subject: string, token: string): Promise<EmailUnsubscribeReply['data']> {
  const parsed = emailTokenSchema.safeParse(token);
  if (!parsed.success) return { status: 'invalid', language: null, address: null };
  return (await rpc.request<EmailUnsubscribeReply>(subject, { token: parsed.data })).data;
}

/** RFC 8058 §3.1: the POST's body holds `List-Unsubscribe=One-Click`. */
function isOneClick(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)['List-Unsubscribe'] === 'One-Click';
}

/**
 * Parses multipart/form-data bodies (a mailbox provider may send the one-click form so) on the unsubscribe
 * route only; other routes take no multipart body (415, as before). Must run before `app.init()`.
 */
export function installOneClickFormParser(app: NestFastifyApplication): void {
  app.useBodyParser('multipart/form-data', { bodyLimit: ONE_CLICK_BODY_LIMIT }, (req, body, done) => {
    if (!(req.url ?? '').startsWith(UNSUBSCRIBE_PATH_PREFIX)) {
      return done(Object.assign(new Error(`Unsupported Media Type: ${req.headers['content-type'] ?? ''}`), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }));
    }
    done(null, multipartFields(req.headers['content-type'] ?? '', body as Buffer));
  });
}

/** The text fields of a multipart/form-data body (RFC 7578); a malformed body has none. */
export function multipartFields(contentType: string, body: Buffer): Record<string, string> {
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = boundary?.[1] ?? boundary?.[2];
  if (!b) return fields;
  for (const part of body.toString('utf8').split(`--${b}`).slice(1)) {
    if (part.startsWith('--')) break;
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const name = /content-disposition:\s*form-data;[^\r\n]*\bname="([^"]*)"/i.exec(part.slice(0, split))?.[1];
    if (name === undefined || name in fields) continue;
    fields[name] = part.slice(split + 4).replace(/\r\n$/, '');
  }
  return fields;
}

const TEXTS: Record<
  DeliveryLanguage,
  {
    confirmed: [string, string];
    confirmExpired: [string, string];
    confirmInvalid: [string, string];
    unsubscribeAsk: [string, (address: string) => string];
    unsubscribeButton: string;
    unsubscribed: [string, (address: string) => string];
    unsubscribeInvalid: [string, string];
    badRequest: [string, string];
  }
> = {
  ru: {
    confirmed: ['Адрес подтверждён', 'Готово: уведомления Invest tracker будут приходить на этот адрес. Включить или выключить их можно в настройках уведомлений.'],
    confirmExpired: ['Ссылка устарела', 'Ссылка действует 7 дней. Укажите адрес ещё раз в настройках уведомлений, и мы пришлём новую.'],
    confirmInvalid: ['Ссылка недействительна', 'Эта ссылка не подтверждает ни один адрес: возможно, адрес с тех пор изменили. Проверьте настройки уведомлений.'],
    unsubscribeAsk: ['Отписаться от писем?', (a) => `Письма с уведомлениями Invest tracker приходят на ${a}. Нажмите кнопку, чтобы их выключить.`],
    unsubscribeButton: 'Отписаться',
    unsubscribed: ['Вы отписались', (a) => `Письма с уведомлениями больше не будут приходить на ${a}. Включить их снова можно в настройках уведомлений.`],
    unsubscribeInvalid: ['Ссылка недействительна', 'Эта ссылка отписки не подходит ни к одному адресу: возможно, адрес с тех пор изменили.'],
    badRequest: ['Неверный запрос', 'Для отписки нужно отправить форму List-Unsubscribe=One-Click.'],
  },
  en: {
    confirmed: ['Address confirmed', 'Done: Invest tracker notifications will come to this address. You can turn them on or off in the notification settings.'],
    confirmExpired: ['The link has expired', 'The link works for 7 days. Enter the address again in the notification settings and we will send a new one.'],
    confirmInvalid: ['The link is not valid', 'This link confirms no address: perhaps the address was changed since. Check the notification settings.'],
    unsubscribeAsk: ['Unsubscribe from these mails?', (a) => `Invest tracker notification mails go to ${a}. Press the button to turn them off.`],
    unsubscribeButton: 'Unsubscribe',
    unsubscribed: ['You are unsubscribed', (a) => `Notification mails will no longer go to ${a}. You can turn them on again in the notification settings.`],
    unsubscribeInvalid: ['The link is not valid', 'This unsubscribe link matches no address: perhaps the address was changed since.'],
    badRequest: ['Bad request', 'To unsubscribe, post the form List-Unsubscribe=One-Click.'],
  },
};


/** A small page that loads nothing, posts only here, is never framed or cached, and sends no Referer (the token is in its URL). */
function htmlPage(reply: FastifyReply, status: number, lang: DeliveryLanguage, title: string, body: string): string {
  void reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Invest tracker</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.4rem}button{font:inherit;padding:.5rem 1.2rem;border:0;border-radius:6px;background:#0b57d0;color:#fff;cursor:pointer}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}
