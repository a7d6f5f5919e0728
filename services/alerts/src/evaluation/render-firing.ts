import type { CrossedAsset, FiringExplanation, Locale } from '@invest/contracts';
import type { Decimal } from '@invest/platform';
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

/** A template cut once into its text and its `{placeholders}`: thousands of firings fill the same few. */
type CompiledTemplate = readonly (string | { key: string })[];
const compiled = new Map<string, CompiledTemplate>();
function compile(template: string): CompiledTemplate {
  let parts = compiled.get(template);
  if (!parts) {
    parts = template.split(/(\{\w+\})/).map((p) => (/^\{\w+\}$/.test(p) ? { key: p.slice(1, -1) } : p));
    if (compiled.size >= 1_000) compiled.clear();
    compiled.set(template, parts);
  }
  return parts;
}

/** The template with each placeholder's value (computed only for the placeholders it has); unknown ones stay. */
function fill(template: string, value: (key: string) => string | undefined): string {
  let out = '';
  for (const p of compile(template)) out += typeof p === 'string' ? p : (value(p.key) ?? `{${p.key}}`);
  return out;
}

/**
 * Significant digits of a value below 0.001 (a sub-cent token's price): 0.00000039 shows as such, not 0. Larger
 * values keep at most 6 fraction digits, as ever (1.23456789 → 1.234568).
 */
export const PRICE_SIGNIFICANT_DIGITS = 8;
const SMALL = 0.001;

// One formatter per locale and precision: building an Intl.NumberFormat per number costs more than the rest
// of a firing. And the numbers formatted lately, per formatter: a batch's hundreds of firings show the same
// few rates, changes and thresholds, and each format costs ~2 µs.
const formats = new Map<string, { format: Intl.NumberFormat; memo: Map<number, string> }>();
/** `value` with at most `digits` fraction digits, or (`significant` > 0, below 0.001) `significant` significant ones. */
function num(value: number | null, locale: Locale, digits = 6, significant = PRICE_SIGNIFICANT_DIGITS): string {
  if (value === null) return '—';
  const small = significant > 0 && value !== 0 && Math.abs(value) < SMALL;
  const key = small ? `${locale}:s${significant}` : `${locale}:${digits}`;
  let f = formats.get(key);
  if (!f) {
    const options: Intl.NumberFormatOptions = small ? { maximumSignificantDigits: significant } : { maximumFractionDigits: digits };
    formats.set(key, (f = { format: new Intl.NumberFormat(NUMBER_LOCALE[locale], options), memo: new Map() }));
  }
  // -0 would share 0's memo entry while Intl writes it "-0": a tiny negative change rounded to -0 shows as 0.
  const n = value + 0;
  const known = f.memo.get(n);
  if (known !== undefined) return known;
  if (f.memo.size >= 20_000) f.memo.clear();
  const text = f.format.format(n);
  f.memo.set(n, text);
  return text;
}

// Every digit of a decimal (Intl reads decimal text exactly, and 100 is its most fraction digits), in the locale's
// form; remembered per text as `num` does.
const exactFormats = new Map<Locale, { format: Intl.NumberFormat; memo: Map<string, string> }>();
/** A target or threshold as stored: every digit the user entered (1000000000000.00000001, not 1e12). */
function exact(value: Decimal | null, locale: Locale): string {
  if (value === null) return '—';
  let f = exactFormats.get(locale);
  if (!f) exactFormats.set(locale, (f = { format: new Intl.NumberFormat(NUMBER_LOCALE[locale], { maximumFractionDigits: 100 }), memo: new Map() }));
  const text = value.toString() as `${number}`;
  let out = f.memo.get(text);
  if (out === undefined) {
    if (f.memo.size >= 20_000) f.memo.clear();
    f.memo.set(text, (out = f.format.format(text)));
  }
  return out;
}

const isoTexts = new Map<number, string>();
/** `date.toISOString()`, remembered: a batch's firings carry the same few instants (its rates', now). */
export function isoOf(date: Date): string {
  const ms = date.getTime();
  let text = isoTexts.get(ms);
  if (text === undefined) {
    if (isoTexts.size >= 10_000) isoTexts.clear();
    isoTexts.set(ms, (text = date.toISOString()));
  }
  return text;
}

function signed(n: number | null, locale: Locale): string {
  if (n === null) return '—';
  return `${n > 0 ? '+' : ''}${num(Math.round(n * 100) / 100, locale, 2, 0)}`;
}

/** A portfolio or watchlist as a firing's text names it: its kind and name, or its id when it has none. */
function groupLabel(type: 'portfolio' | 'watchlist', id: number, name: string | null, locale: Locale): string {
  return `${TARGET_NAMES[locale][type]} ${name ? `«${name}»` : `#${id}`}`;
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
    const value = (key: string): string | undefined => {
      switch (key) {
        case 'ticker':
          return head.ticker;
        case 'name':
          return head.name ?? head.ticker;
        case 'rate':
          return num(head.rate, locale);
        case 'target':
        case 'threshold':
          return exact(decision.threshold, locale);
        case 'change':
          return signed(head.price_change_percentage_24h, locale);
        case 'next_threshold':
          return exact(decision.nextThreshold, locale);
        case 'subject':
          return target.type === 'asset' ? head.ticker : groupLabel(target.type, target.id, target.name, locale);
        case 'subject_name':
          // An asset by its name and ticker (the ticker alone when its name is unknown); a group as `{subject}`.
          return target.type === 'asset' ? (head.name && head.name !== head.ticker ? `${head.name} (${head.ticker})` : head.ticker) : groupLabel(target.type, target.id, target.name, locale);
        case 'assets':
          return assets.map((a) => `${a.ticker} ${signed(a.price_change_percentage_24h, locale)}%`).join(', ');
        default:
          return undefined;
      }
    };
    texts[locale] = { title: fill(type.titleTemplate[locale] ?? type.titleTemplate.ru ?? '', value), body: fill(type.bodyTemplate[locale] ?? type.bodyTemplate.ru ?? '', value) };
  }
  const path = fill(type.path, (key) => {
    switch (key) {
      case 'asset_type':
        return head.type;
      case 'asset_id':
        return String(head.id);
      case 'target_type':
        return target.type;
      case 'target_id':
        return String(target.id);
      default:
        return undefined;
    }
  });
  return { texts, path };
}

/** The explanation stored with a firing and published in NotificationFired. */
export function explain(decision: FiringDecision, operator: '>=' | '<=', firedAt: Date, source: string): FiringExplanation {
  const h = decision.headline;
  return {
    // JSON numbers, as the contract has them (the nearest double; the texts and the notification keep every digit).
    threshold: decision.threshold.toNumber(),
    operator,
    next_threshold: decision.nextThreshold?.toNumber() ?? null,
    cooldown_ends_at: decision.cooldownEndsAt ? isoOf(decision.cooldownEndsAt) : null,
    rate: h.rate,
    price_change_percentage_24h: h.change24h,
    rate_as_of: isoOf(h.asOf),
    observed_at: isoOf(h.observedAt),
    latency_ms: Math.max(0, firedAt.getTime() - h.observedAt.getTime()),
    source,
  };
}
