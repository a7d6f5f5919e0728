import type { Logger } from '@invest/platform';

export interface TelegramClientOptions {
  /** `TELEGRAM_API_URL`, e.g. `https://api.telegram.org` (no trailing slash). */
  apiUrl: string;
  botToken: string;
  timeoutMs: number;
  logger?: Logger;
}

/** The bot as getMe describes it. */
export interface TelegramBotUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username: string;
}

/** What sendMessage returns that we keep. */
export interface TelegramSentMessage {
  message_id: number;
  chat: { id: number };
}

export interface InlineKeyboardButton {
  text: string;
  url: string;
}

export interface SendMessageParams {
  chat_id: number;
  text: string;
  parse_mode?: 'HTML';
  reply_markup?: { inline_keyboard: InlineKeyboardButton[][] };
  link_preview_options?: { is_disabled: boolean };
  /** Up to 1000 messages a second instead of about 30, paid in Stars per message above the free limit (reference §7). */
  allow_paid_broadcast?: boolean;
}

/**
 * A Bot API call that failed. `status` is the answer's `error_code` (which is also its HTTP status), absent for
 * timeouts and network failures; `retryAfterS` is a 429's `parameters.retry_after` (or its Retry-After header).
 * The message never holds the request URL: the token is in its path.
 */
export class TelegramApiError extends Error {
  constructor(
    readonly method: string,
    readonly kind: 'api' | 'timeout' | 'network' | 'bad_payload',
    readonly description: string,
    readonly status?: number,
    readonly retryAfterS?: number,
  ) {
    super(`telegram ${method}: ${status !== undefined ? `${status} ` : ''}${description}`);
    this.name = 'TelegramApiError';
  }
}

interface Envelope<T> {
  ok: boolean;
  result?: T;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/**
 * The Bot API calls delivery makes (reference §1–4): `POST <api>/bot<token>/<method>` with a JSON body, one
 * attempt each with a timeout (the outbox retries sends), `{"ok":true,"result":…}` or a TelegramApiError.
 * getMe is asked once and kept (the bot's username goes into every link).
 */
export class TelegramClient {
  private me: Promise<TelegramBotUser> | undefined;

  constructor(private readonly opts: TelegramClientOptions) {}

  /** The bot, asked once (a failed answer is asked again next time). */
  getMe(): Promise<TelegramBotUser> {
    this.me ??= this.call<TelegramBotUser>('getMe', {}).catch((err: unknown) => {
      this.me = undefined;
      throw err;
    });
    return this.me;
  }

  async setWebhook(params: { url: string; secret_token: string; allowed_updates: string[] }): Promise<void> {
    await this.call<boolean>('setWebhook', params);
  }

  sendMessage(params: SendMessageParams): Promise<TelegramSentMessage> {
    return this.call<TelegramSentMessage>('sendMessage', params);
  }

  async answerCallbackQuery(params: { callback_query_id: string; text?: string }): Promise<void> {
    await this.call<boolean>('answerCallbackQuery', params);
  }

  async call<T>(method: string, params: object): Promise<T> {
    const url = `${this.opts.apiUrl}/bot${this.opts.botToken}/${method}`;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(params), signal: timeout });
    } catch (err) {
      if (timeout.aborted) throw new TelegramApiError(method, 'timeout', `no answer within ${this.opts.timeoutMs} ms`);
      // Only the cause's code (ECONNREFUSED…): the URL, with the token in it, stays out of errors and logs.
      const cause = (err as { cause?: { code?: unknown } }).cause;
      throw new TelegramApiError(method, 'network', `request failed${typeof cause?.code === 'string' ? `: ${cause.code}` : ''}`);
    }
    let body: Envelope<T>;
    try {
      body = (await res.json()) as Envelope<T>;
    } catch {
      if (timeout.aborted) throw new TelegramApiError(method, 'timeout', `no answer within ${this.opts.timeoutMs} ms`);
      throw new TelegramApiError(method, 'bad_payload', `HTTP ${res.status} without a JSON body`, res.status >= 400 ? res.status : undefined);
    }
    if (body?.ok === true && body.result !== undefined) return body.result;
    const status = typeof body?.error_code === 'number' ? body.error_code : res.status;
    const header = Number(res.headers.get('retry-after'));
    const retryAfterS = body?.parameters?.retry_after ?? (Number.isFinite(header) && header > 0 ? header : undefined);
    throw new TelegramApiError(method, 'api', String(body?.description ?? `HTTP ${res.status}`).slice(0, 300), status, retryAfterS);
  }
}
