import { z } from 'zod';

/**
 * Money and quantities (deal quantity, price, commission; a custom asset's price) are exact decimals with
 * one rule everywhere: at most DECIMAL_PLACES digits after the point and at most DECIMAL_MAX in magnitude.
 * Inside the services and on NATS they travel as canonical decimal text (`"42290747.88"`), never as a
 * double; the gateway writes them into HTTP answers as JSON numbers with exactly that text.
 */
export const DECIMAL_PLACES = 8;
/** Largest magnitude of an input decimal (1e15): 16 integer digits at most, so numeric(24, 8) holds any. */
export const DECIMAL_MAX = '1000000000000000';

/** Decimal text as clients send it: `10`, `-1.5`, `.5`, `5.`, `1e3`, `2.5E-3` (surrounding spaces allowed). */
const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;
/** Canonical decimal text: no exponent, no leading zeros, no trailing fraction zeros, no `-0`. */
const CANONICAL_TEXT = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** A decimal split into sign, significant digits (no leading or trailing zeros; '' for zero) and the power of ten of the last digit. */
interface DecimalParts {
  negative: boolean;
  digits: string;
  exponent: number;
}

function splitDecimal(text: string): DecimalParts | null {
  const m = DECIMAL_TEXT.exec(text.trim());
  if (!m) return null;
  const [, sign, int = '', fraction = '', exp] = m;
  if (int === '' && fraction === '') return null;
  // No amount anyone means has an exponent beyond ±1000; refusing it keeps the texts built below small.
  if (exp !== undefined && !(Math.abs(Number(exp)) <= 1000)) return null;
  let digits = (int + fraction).replace(/^0+/, '');
  let exponent = Number(exp ?? 0) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  exponent += digits.length - trimmed.length;
  digits = trimmed;
  return { negative: sign === '-' && digits !== '', digits, exponent: digits === '' ? 0 : exponent };
}

function joinDecimal({ negative, digits, exponent }: DecimalParts): string {
  if (digits === '') return '0';
  let text: string;
  if (exponent >= 0) text = digits + '0'.repeat(exponent);
  else {
    const places = -exponent;
    const padded = digits.padStart(places + 1, '0');
    text = `${padded.slice(0, padded.length - places)}.${padded.slice(padded.length - places)}`;
  }
  return negative ? `-${text}` : text;
}

/**
 * The canonical text of a decimal given as text (plain or exponent notation) or as a finite number (its
 * shortest round-trip text, which is what a JSON literal of up to 15 significant digits was); null when
 * it is not a decimal. Exact: `"1e-8"` gives `"0.00000001"`, `"1.50"` gives `"1.5"`.
 */
export function canonicalDecimal(value: string | number): string | null {
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  const parts = splitDecimal(String(value));
  return parts ? joinDecimal(parts) : null;
}

/** Number of digits after the point of a decimal's canonical form (0 for integers). */
const placesOf = (p: DecimalParts) => Math.max(0, -p.exponent);
/** Whether |value| > DECIMAL_MAX. */
function beyondMax(p: DecimalParts): boolean {
  const integerDigits = p.digits.length + p.exponent;
  if (integerDigits !== DECIMAL_MAX.length) return integerDigits > DECIMAL_MAX.length;
  // Sixteen integer digits: only 1e15 itself (digits "1", nothing after the point) is within range.
  return !(p.digits === '1' && p.exponent === DECIMAL_MAX.length - 1);
}

export type DecimalBound = 'positive' | 'nonnegative' | 'any';

/** Schemas that are exact decimals, with how the OpenAPI documents show them (see decimalDocOf). */
const decimalDocs = new WeakMap<object, Record<string, unknown>>();

/**
 * The OpenAPI schema of an exact-decimal zod schema (a JSON number with its bounds and scale), or
 * undefined for any other schema. The gateway's OpenAPI generation uses this to override what zod
 * would say (a union with a string and a transform).
 */
export function decimalDocOf(schema: object): Record<string, unknown> | undefined {
  return decimalDocs.get(schema);
}

/**
 * A JSON number literal that a double would change (`123456789.123456789`, `1e400`), kept as its text by the
 * gateway's body parser. Not a string: a string field refuses it as it refuses any number; decimal schemas
 * read its text exactly. Sent on as that text (a JSON string), as decimal inputs are.
 */
export class NumberLiteral {
  constructor(readonly text: string) {}
  toJSON(): string {
    return this.text;
  }
}

/**
 * A money or quantity INPUT (`label`: the field's name in messages): a JSON number or a decimal string
 * (`"10.5"`, as HTML forms send; exponent notation `"1e3"` too, like a JSON number), at most 8 decimal
 * places, at most 1e15 in magnitude, and `bound`: greater than 0, at least 0, or either sign. The output is
 * the canonical decimal text (`"10.5"`), so the gateway forwards exactly what the client wrote, and the
 * schema accepts its own output.
 */
export function decimalSchema(label: string, bound: DecimalBound = 'any') {
  const notNumber = `The ${label} must be a number.`;
  const schema = z.union([z.number(), z.string(), z.instanceof(NumberLiteral)], { error: notNumber }).transform((value, ctx) => {
    const parts = typeof value === 'number' && !Number.isFinite(value) ? null : splitDecimal(value instanceof NumberLiteral ? value.text : String(value));
    const fail = (message: string) => {
      ctx.issues.push({ code: 'custom', message, input: value });
      return z.NEVER;
    };
    if (!parts) return fail(notNumber);
    if (bound === 'positive' && (parts.digits === '' || parts.negative)) return fail(`The ${label} must be greater than 0.`);
    if (bound === 'nonnegative' && parts.negative) return fail(`The ${label} must be at least 0.`);
    if (placesOf(parts) > DECIMAL_PLACES) return fail(`The ${label} may not have more than ${DECIMAL_PLACES} decimal places.`);
    if (beyondMax(parts)) return fail(`The ${label} may not be greater than ${DECIMAL_MAX} in magnitude.`);
    return joinDecimal(parts);
  });
  decimalDocs.set(schema, {
    type: 'number',
    ...(bound === 'positive' ? { minimum: 0, exclusiveMinimum: true } : bound === 'nonnegative' ? { minimum: 0 } : { minimum: -Number(DECIMAL_MAX) }),
    maximum: Number(DECIMAL_MAX),
    multipleOf: 10 ** -DECIMAL_PLACES,
    description: `Exact decimal: at most ${DECIMAL_PLACES} decimal places, at most 1e15 in magnitude. A decimal string ("10.5") is accepted too.`,
  });
  return schema;
}

/**
 * A money or quantity OUTPUT: canonical decimal text on NATS; the gateway writes it into HTTP answers as a
 * JSON number with exactly these digits. A number is accepted too (an HTTP answer read back by a client) and
 * turned into its canonical text.
 */
export const decimalOutputSchema = z
  .union([z.string().regex(CANONICAL_TEXT, 'Expected canonical decimal text.'), z.number()])
  .transform((v, ctx) => {
    const text = canonicalDecimal(v);
    if (text === null) {
      ctx.issues.push({ code: 'custom', message: 'Expected a decimal.', input: v });
      return z.NEVER;
    }
    return text;
  });
decimalDocs.set(decimalOutputSchema, { type: 'number', description: 'Exact decimal (the digits are exact; read it as a decimal, not a double).' });

/** Whether a zod schema is `decimalOutputSchema` (the gateway turns such values into JSON numbers). */
export const isDecimalOutput = (schema: unknown): boolean => schema === decimalOutputSchema;
