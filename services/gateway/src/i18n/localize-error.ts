import type { Locale } from '@invest/contracts';
import { ERROR_TEXTS_RU, WORDS_RU } from './error-texts.js';

interface Template {
  english: string;
  russian: string;
  pattern: RegExp;
  names: string[];
  /** Characters of the template outside its placeholders: of two templates that match, the longer one is meant. */
  literal: number;
}

const PLACEHOLDER = /\{(\w+)\}/g;
/** Placeholders that stand for one word (the values of `must be {first} or {second}.`), so longer sentences stay apart. */
const ONE_WORD = new Set(['first', 'second', 'third']);

function compile(english: string, russian: string): Template {
  const names: string[] = [];
  const source = english
    .split(PLACEHOLDER)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part);
      return ONE_WORD.has(part) ? '([\\w-]+)' : '(.+?)';
    })
    .join('');
  return { english, russian, pattern: new RegExp(`^${source}$`, 's'), names, literal: english.replace(PLACEHOLDER, '').length };
}

const TEMPLATES: readonly Template[] = Object.entries(ERROR_TEXTS_RU).map(([en, ru]) => compile(en, ru));

/** The catalog entry an English message was made from (the most specific that matches), or undefined. */
export function templateOf(message: string): Template | undefined {
  let best: Template | undefined;
  for (const t of TEMPLATES) if ((!best || t.literal > best.literal) && t.pattern.test(message)) best = t;
  return best;
}

/** `{n|one|few|many}`: the Russian noun form after the number n; two forms are the genitive (after "не больше"). */
function russianPlural(n: number, forms: string[]): string {
  const [one = '', few = '', many = few] = forms;
  const mod10 = n % 10;
  const mod100 = n % 100;
  if (forms.length === 2) return mod10 === 1 && mod100 !== 11 ? one : few;
  if (mod10 === 1 && mod100 !== 11) return one;
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return few;
  return many;
}

function renderRussian(t: Template, message: string): string {
  const values = new Map(t.names.map((name, i) => [name, t.pattern.exec(message)![i + 1]!]));
  return t.russian.replace(/\{(\w+)((?:\|[^|}]+)*)\}/g, (_, name: string, forms: string) => {
    const value = values.get(name) ?? '';
    if (!forms) return WORDS_RU[value] ?? value;
    return `${value} ${russianPlural(Number(value), forms.slice(1).split('|'))}`;
  });
}

const MORE_ERRORS = /^(.*) \(and (\d+) more errors?\)$/s;

/**
 * An English error message in `locale`: English as it is; Russian from the catalog (the `(and N more errors)` a
 * 422's summary ends with included). A message the catalog does not know stays English (the catalog test keeps
 * every message a client can receive in it).
 */
export function localizeMessage(message: string, locale: Locale): string {
  if (locale === 'en') return message;
  const more = MORE_ERRORS.exec(message);
  if (more) return `${localizeMessage(more[1]!, locale)} (и ещё ${more[2]} ${russianPlural(Number(more[2]), ['ошибка', 'ошибки', 'ошибок'])})`;
  const t = templateOf(message);
  return t ? renderRussian(t, message) : message;
}

/** An error body's `message` and field `errors` in `locale`; the other fields are untouched. */
export function localizeErrorBody<B extends { message: string; errors?: Record<string, string[]> }>(body: B, locale: Locale): B {
  if (locale === 'en') return body;
  const errors = body.errors && Object.fromEntries(Object.entries(body.errors).map(([field, list]) => [field, list.map((m) => localizeMessage(m, locale))]));
  return { ...body, message: localizeMessage(body.message, locale), ...(errors ? { errors } : {}) };
}

/**
 * A deal import preview's rows with each row error's `message` in `locale` (the content of a 200, so the error filter
 * never sees it); `field` and `code` are untouched.
 */
export function localizeRowErrors<R extends { errors: { message: string }[] }>(rows: R[], locale: Locale): R[] {
  if (locale === 'en') return rows;
  return rows.map((r) => (r.errors.length === 0 ? r : { ...r, errors: r.errors.map((e) => ({ ...e, message: localizeMessage(e.message, locale) })) }));
}
