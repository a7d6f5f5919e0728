import { formatNumber, type Locale } from '../format/number-format';
import type { Firing } from './inbox-events';

/** Firings arriving within this long of the first of a move join its toast. */
export const MOVE_WINDOW_MS = 3000;

/** The firings one toast shows: those of one rate batch, or arriving within MOVE_WINDOW_MS of the first. */
export interface Move {
  openedAt: number;
  batches: Set<string>;
  firings: Firing[];
}

/**
 * The rate batch a firing came from: the firings of one batch share the time the market service observed its rates.
 * (Read loosely: a stream event is JSON from the network, and one without it still shows.)
 */
export const batchOf = (f: Firing): string | null => (f.explanation as Firing['explanation'] | undefined)?.observed_at ?? null;

/** Whether `f`, arriving at `now`, belongs to the open move's toast. */
export function joinsMove(move: Move | null, f: Firing, now: number, windowMs = MOVE_WINDOW_MS): boolean {
  if (move === null) return false;
  const batch = batchOf(f);
  return now - move.openedAt <= windowMs || (batch !== null && move.batches.has(batch));
}

const NOUNS: Record<Locale, Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }> = {
  ru: { one: 'уведомление', few: 'уведомления', many: 'уведомлений', other: 'уведомления' },
  en: { one: 'notification', other: 'notifications' },
};

/** `3 уведомления`, `5 уведомлений`, `21 уведомление` / `3 notifications`. */
export function notificationCount(n: number, locale: Locale): string {
  const nouns = NOUNS[locale];
  return `${n} ${nouns[new Intl.PluralRules(locale).select(n)] ?? nouns.other}`;
}

/** The asset that moved furthest among the firings (by |24h change|), with its change when known. */
function headline(firings: readonly Firing[]): { ticker: string; change: number | null } | null {
  let best: { ticker: string; change: number | null } | null = null;
  for (const f of firings) {
    for (const a of (f.assets as Firing['assets'] | undefined) ?? []) {
      const change = a.price_change_percentage_24h;
      if (!best || (change !== null && (best.change === null || Math.abs(change) > Math.abs(best.change)))) best = { ticker: a.ticker, change };
    }
  }
  return best;
}

/** A 24h change as the toast's headline says it: `+5,2 %` / `+5.2%`. */
function signedPercent(value: number, locale: Locale): string {
  const n = formatNumber(value, locale, 1, 1);
  const sign = value > 0 ? '+' : '';
  return locale === 'ru' ? `${sign}${n} %` : `${sign}${n}%`;
}

/**
 * What the toast of a move says: one firing as it is (its title and text); several as "LKOH +5,2 %: 3 уведомления"
 * (the asset that moved furthest) followed by each firing's text.
 */
export function moveToast(firings: readonly Firing[], locale: Locale): { title: string; text: string; items?: string[] } {
  const [only] = firings;
  if (firings.length === 1 && only) return { title: only.title, text: only.body };
  const head = headline(firings);
  const count = notificationCount(firings.length, locale);
  const title = head ? `${head.ticker}${head.change === null ? '' : ` ${signedPercent(head.change, locale)}`}: ${count}` : count;
  // The bodies: two alerts on one share have the same title ("GAZP: price 171.81"); the body says which target.
  return { title, text: '', items: firings.map((f) => f.body) };
}

/**
 * One toast per move: the first firing shows a toast at once, and firings of the same move change that toast in
 * place rather than stacking new ones. A firing shown already (a replay) changes nothing; after the person closed
 * the toast, the next firing starts a new one.
 */
export function createMoveToaster(deps: {
  show: (t: { title: string; text: string; items?: string[] }) => number;
  update: (id: number, t: { title: string; text: string; items?: string[] }) => boolean;
  locale: () => Locale;
  now?: () => number;
}): (f: Firing) => void {
  const now = deps.now ?? (() => Date.now());
  let move: (Move & { toastId: number }) | null = null;
  // The ids shown lately: a firing delivered again (a replay after a reconnect) is not news.
  const seen = new Set<number>();
  return (f) => {
    if (seen.has(f.id)) return;
    seen.add(f.id);
    if (seen.size > 500) seen.delete(seen.values().next().value!);
    const at = now();
    if (move && joinsMove(move, f, at)) {
      move.firings.push(f);
      const batch = batchOf(f);
      if (batch !== null) move.batches.add(batch);
      if (deps.update(move.toastId, moveToast(move.firings, deps.locale()))) return;
    }
    const batch = batchOf(f);
    move = { openedAt: at, batches: new Set(batch === null ? [] : [batch]), firings: [f], toastId: 0 };
    move.toastId = deps.show(moveToast(move.firings, deps.locale()));
  };
}
