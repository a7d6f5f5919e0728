import type { DeliveryLanguage, NotificationFiredV1 } from '@invest/contracts';
import type { OutgoingMessage } from '../channels/channel.js';

/** The web client's inbox, where a message about several firings links to. */
export const INBOX_PATH = '/notifications';

/**
 * Pages of the web client a firing's `path` may name (web/src/app.tsx): a portfolio, and the subscription screen
 * (an account notice of a declined charge). Alerts' asset and watchlist paths have no page in the web client yet,
 * so their messages link to the inbox.
 */
const WEB_PAGES = [/^\/portfolios\/\d+$/, /^\/subscription$/];

const NOUN: Record<DeliveryLanguage, Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }> = {
  ru: { one: 'уведомление', few: 'уведомления', many: 'уведомлений', other: 'уведомления' },
  en: { one: 'notification', other: 'notifications' },
};
const DIGEST: Record<DeliveryLanguage, string> = { ru: 'Сводка', en: 'Digest' };
const plurals = { ru: new Intl.PluralRules('ru'), en: new Intl.PluralRules('en') };
const changeFormats = {
  ru: new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 1, signDisplay: 'exceptZero' }),
  en: new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, signDisplay: 'exceptZero' }),
};

/** "3 уведомления", "5 уведомлений", "21 уведомление"; "1 notification", "3 notifications". */
export function countNotifications(n: number, language: DeliveryLanguage): string {
  const nouns = NOUN[language];
  return `${n} ${nouns[plurals[language].select(n)] ?? nouns.other}`;
}

/** A 24h change as each language writes it: "+5,2 %" (no-break space), "+5.2%". */
export function formatChange(percent: number, language: DeliveryLanguage): string {
  const n = changeFormats[language].format(percent);
  return language === 'ru' ? `${n}\u00a0%` : `${n}%`;
}

function textOf(f: NotificationFiredV1, language: DeliveryLanguage): { title: string; body: string } {
  return f.texts[language] ?? { title: f.title, body: f.body };
}

/** The asset that moved furthest (24h change) among what the firings crossed, if any says how far. */
function headline(firings: readonly NotificationFiredV1[]): { ticker: string; change: number } | undefined {
  let best: { ticker: string; change: number } | undefined;
  for (const f of firings) {
    for (const a of f.assets) {
      const change = a.price_change_percentage_24h;
      if (change === null || !Number.isFinite(change)) continue;
      if (!best || Math.abs(change) > Math.abs(best.change)) best = { ticker: a.ticker, change };
    }
  }
  return best;
}

export interface RenderInput {
  userId: string;
  language: DeliveryLanguage;
  /** In the order they fired; at least one. */
  firings: readonly NotificationFiredV1[];
  /** Several moves, or what waited out the quiet hours. */
  digest: boolean;
  /** The web client's origin, without a trailing slash. */
  publicBaseUrl: string;
}

/**
 * One message in the user's language. One firing keeps its own title and links to its page (the inbox when the
 * web client has none); several are "LKOH +5,2 %: 3 уведомления" ("Сводка: 7 уведомлений" for a digest), each
 * firing's body a line, linking to the inbox.
 */
export function renderMessage(input: RenderInput): OutgoingMessage {
  const { language, firings } = input;
  if (firings.length === 0) throw new Error('a message needs at least one firing');
  const lines = firings.map((f) => textOf(f, language).body);
  let title: string;
  let path: string;
  if (firings.length === 1) {
    const only = firings[0]!;
    title = textOf(only, language).title;
    path = WEB_PAGES.some((page) => page.test(only.path)) ? only.path : INBOX_PATH;
  } else {
    const count = countNotifications(firings.length, language);
    const top = headline(firings);
    title = input.digest ? `${DIGEST[language]}: ${count}` : top ? `${top.ticker} ${formatChange(top.change, language)}: ${count}` : count;
    path = INBOX_PATH;
  }
  return { userId: input.userId, language, title, lines, url: `${input.publicBaseUrl}${path}`, digest: input.digest, firings };
}
