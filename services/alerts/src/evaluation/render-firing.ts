import type { CrossedAsset, FiringExplanation, Locale } from '@invest/contracts';
import type { FiringDecision, NotificationKind } from './evaluation.types.js';

/** A NotificationType row: templates per locale with `{placeholders}`. */
export interface NotificationTypeRow {
  id: number;
  code: NotificationKind;
  titleTemplate: Record<string, string>;
  bodyTemplate: Record<string, string>;
  path: string;
}

export interface RenderedTexts {
  texts: Record<Locale, { title: string; body: string }>;
  path: string;
}

const NUMBER_LOCALE: Record<Locale, string> = { ru: 'ru-RU', en: 'en-US' };
const TARGET_NAMES: Record<Locale, Record<'portfolio' | 'watchlist', string>> = {
  ru: { portfolio: 'Портфель', watchlist: 'Список наблюдения' },
  en: { portfolio: 'Portfolio', watchlist: 'Watchlist' },
};

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, key: string) => values[key] ?? m);
}

// One formatter per locale and precision: building an Intl.NumberFormat per number costs more than the rest
// of a firing. And the numbers formatted lately: a batch's hundreds of firings show the same few rates,
// changes and thresholds, and each format costs ~2 µs.
const formatters = new Map<string, Intl.NumberFormat>();
const formatted = new Map<string, string>();
function num(value: number | null, locale: Locale, digits = 6): string {
  if (value === null) return '—';
  // -0 would share 0's memo key while Intl writes it "-0": a tiny negative change rounded to -0 shows as 0.
  const n = value + 0;
  const key = `${locale}:${digits}`;
  const memo = `${key}:${n}`;
  const known = formatted.get(memo);
  if (known !== undefined) return known;
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.NumberFormat(NUMBER_LOCALE[locale], { maximumFractionDigits: digits })));
  if (formatted.size >= 20_000) formatted.clear();
  const text = f.format(n);
  formatted.set(memo, text);
  return text;
}

function signed(n: number | null, locale: Locale): string {
  if (n === null) return '—';
  return `${n > 0 ? '+' : ''}${num(Math.round(n * 100) / 100, locale, 2)}`;
}

/**
 * Renders a firing from its NotificationType templates in every locale: the asset's ticker and name, the
 * price or change, the thresholds, and the link path.
 */
export function renderFiring(
  type: NotificationTypeRow,
  decision: FiringDecision,
  target: { type: 'asset' | 'portfolio' | 'watchlist'; id: number; name: string | null },
  assets: readonly CrossedAsset[],
): RenderedTexts {
  const head = assets[0]!;
  const texts = {} as RenderedTexts['texts'];
  for (const locale of ['ru', 'en'] as const) {
    const subject = target.type === 'asset' ? head.ticker : `${TARGET_NAMES[locale][target.type]} ${target.name ? `«${target.name}»` : `#${target.id}`}`;
    const values: Record<string, string> = {
      ticker: head.ticker,
      name: head.name ?? head.ticker,
      rate: num(head.rate, locale),
      target: num(decision.threshold, locale),
      change: signed(head.price_change_percentage_24h, locale),
      threshold: num(decision.threshold, locale),
      next_threshold: num(decision.nextThreshold, locale),
      subject,
      assets: assets.map((a) => `${a.ticker} ${signed(a.price_change_percentage_24h, locale)}%`).join(', '),
    };
    texts[locale] = { title: fill(type.titleTemplate[locale] ?? type.titleTemplate.ru ?? '', values), body: fill(type.bodyTemplate[locale] ?? type.bodyTemplate.ru ?? '', values) };
  }
  const path = fill(type.path, {
    asset_type: head.type,
    asset_id: String(head.id),
    target_type: target.type,
    target_id: String(target.id),
  });
  return { texts, path };
}

/** The explanation stored with a firing and published in NotificationFired. */
export function explain(decision: FiringDecision, operator: '>=' | '<=', firedAt: Date, source: string): FiringExplanation {
  const h = decision.headline;
  return {
    threshold: decision.threshold,
    operator,
    next_threshold: decision.nextThreshold,
    cooldown_ends_at: decision.cooldownEndsAt?.toISOString() ?? null,
    rate: h.rate,
    price_change_percentage_24h: h.change24h,
    rate_as_of: h.asOf.toISOString(),
    observed_at: h.observedAt.toISOString(),
    latency_ms: Math.max(0, firedAt.getTime() - h.observedAt.getTime()),
    source,
  };
}
