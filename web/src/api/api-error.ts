import type { Locale } from '../format/number-format';

/** What went wrong, in the terms the screens act on. */
export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'plan_required'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable'
  | 'network'
  | 'server';

/** An answer that was not a success, with the gateway's Laravel-shaped body (`message`, `errors`, extras). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: ErrorKind,
    message: string,
    /** Field → messages, from a 422's `errors`: shown beside each field. */
    readonly fieldErrors: Record<string, string[]> = {},
    readonly body: Record<string, unknown> = {},
    /** When a 429's limit resets (ISO), from `resets_at` or `Retry-After`. */
    readonly resetsAt?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function kindOf(status: number, code: unknown): ErrorKind {
  if (status === 0) return 'network';
  if (status === 422 || status === 400) return 'validation';
  if (status === 401) return 'unauthenticated';
  if (status === 403) return code === 'plan_required' ? 'plan_required' : 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status === 502 || status === 503 || status === 504) return 'unavailable';
  return 'server';
}

/** The ApiError of an answer; `body` is its parsed JSON (anything else counts as no body). */
export function apiErrorFrom(status: number, body: unknown, retryAfter?: string | null, now = Date.now()): ApiError {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const message = typeof b.message === 'string' && b.message ? b.message : `HTTP ${status}`;
  const fieldErrors: Record<string, string[]> = {};
  if (b.errors && typeof b.errors === 'object') {
    for (const [field, list] of Object.entries(b.errors as Record<string, unknown>)) {
      const texts = (Array.isArray(list) ? list : [list]).filter((m): m is string => typeof m === 'string');
      if (texts.length) fieldErrors[field] = texts;
    }
  }
  let resetsAt = typeof b.resets_at === 'string' ? b.resets_at : undefined;
  if (!resetsAt && retryAfter && /^\d+$/.test(retryAfter.trim())) resetsAt = new Date(now + Number(retryAfter) * 1000).toISOString();
  return new ApiError(status, kindOf(status, b.code), message, fieldErrors, b, resetsAt);
}

/**
 * An input the page refuses itself, before sending anything (a number it cannot read): a validation error like a
 * 422's, so each message shows beside its field (`field-error-<field>`).
 */
export function inputError(fieldErrors: Record<string, string[]>): ApiError {
  return new ApiError(422, 'validation', Object.values(fieldErrors).flat().join(' '), fieldErrors);
}

const TEXTS: Record<Locale, Record<Exclude<ErrorKind, 'validation' | 'conflict' | 'plan_required'>, string>> = {
  ru: {
    unauthenticated: 'Нужно войти: сессия не начата или истекла.',
    forbidden: 'Недостаточно прав для этого действия.',
    not_found: 'Не найдено: возможно, это уже удалено.',
    rate_limited: 'Слишком много запросов. Попробуйте позже.',
    unavailable: 'Сервис временно недоступен. Попробуйте через минуту.',
    network: 'Нет связи с сервером. Проверьте подключение.',
    server: 'Ошибка сервера. Мы уже знаем о ней; попробуйте ещё раз.',
  },
  en: {
    unauthenticated: 'Please sign in: your session has not started or has expired.',
    forbidden: 'You are not allowed to do this.',
    not_found: 'Not found: it may have been deleted.',
    rate_limited: 'Too many requests. Please try again later.',
    unavailable: 'The service is temporarily unavailable. Please try again in a minute.',
    network: 'No connection to the server. Check your network.',
    server: 'Server error. It has been logged; please try again.',
  },
};

/**
 * The sentence a person reads for an error: the server's own message where it explains the case (422, 409, the
 * plan gate; already in the page's language), a fixed clear text for the others; a 429 adds when to try again, a 503 whether it may have happened.
 */
export function describeError(err: unknown, locale: Locale): string {
  if (!(err instanceof ApiError)) return TEXTS[locale].server;
  switch (err.kind) {
    case 'validation':
    case 'conflict':
    case 'plan_required':
      // The gateway words these in the Accept-Language the client sends (the page's locale): shown as they are.
      return err.message;
    case 'rate_limited': {
      if (!err.resetsAt) return TEXTS[locale].rate_limited;
      const at = new Date(err.resetsAt);
      const when = Number.isNaN(at.getTime())
        ? err.resetsAt
        : new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short' }).format(at).replace(/[\u00a0\u202f]/g, ' ');
      return locale === 'ru' ? `Лимит исчерпан. Попробуйте после ${when}.` : `Limit reached. Try again after ${when}.`;
    }
    case 'unavailable':
      return err.body.outcome === 'unknown'
        ? locale === 'ru'
          ? 'Сервис не ответил вовремя; действие могло выполниться. Проверьте, прежде чем повторять.'
          : 'The service did not answer in time; the action may have been done. Check before repeating it.'
        : TEXTS[locale].unavailable;
    default:
      return TEXTS[locale][err.kind];
  }
}
