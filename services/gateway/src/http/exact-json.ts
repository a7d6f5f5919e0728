import { randomBytes } from 'node:crypto';
import { canonicalDecimal, isDecimalOutput, NumberLiteral } from '@invest/contracts';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';

const invalidBody = (message: string) => Object.assign(new SyntaxError(message), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });

/** Refuses bytes that are not UTF-8 (a BOM stays in the text, as `toString` keeps it). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A 400 for a body whose bytes, or percent-escaped bytes, are not UTF-8. */
const notUtf8 = () => Object.assign(new Error('The request body is not valid UTF-8.'), { statusCode: 400, code: 'ERR_BODY_NOT_UTF8' });

/**
 * An `application/x-www-form-urlencoded` body as `URLSearchParams` reads it (`+` is a space, `%XX` a byte, a `%`
 * that starts no escape stays as it is; the first value of a repeated name wins), but strict where it is lenient:
 * it turns bytes that are not UTF-8, raw or escaped (`%FF`), into U+FFFD. A 400 error for those.
 */
export function formBodyFields(body: Buffer): Record<string, string> | Error {
  const text = utf8BodyText(body);
  if (text instanceof Error) return text;
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = formDecode(at < 0 ? pair : pair.slice(0, at));
    const value = formDecode(at < 0 ? '' : pair.slice(at + 1));
    if (name === undefined || value === undefined) return notUtf8();
    if (!(name in fields)) fields[name] = value;
  }
  return fields;
}

/**
 * One name or value: each run of escapes decoded strictly as UTF-8 on its own (the characters around it came
 * from a body that is UTF-8, so a character cannot continue across a run's edge); undefined if one is not.
 */
function formDecode(part: string): string | undefined {
  let failed = false;
  const out = part.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.slice(1).split('%').map((hex) => parseInt(hex, 16)));
    try {
      return strictUtf8.decode(bytes);
    } catch {
      failed = true;
      return '';
    }
  });
  return failed ? undefined : out;
}

/**
 * A request body's text, or a 400 error (`ERR_BODY_NOT_UTF8`) when its bytes are not UTF-8: decoded leniently,
 * each bad byte would become U+FFFD and be stored as text the client never sent (as a lone surrogate would,
 * which the contracts refuse).
 */
export function utf8BodyText(body: Buffer): string | Error {
  try {
    return strictUtf8.decode(body);
  } catch {
    return notUtf8();
  }
}

// Without the source text of a number in a reviver (Node 21+; the project runs on 24) exact numbers would be
// rounded silently: the gateway does not start.
if (JSON.parse('1', ((_key: string, _value: unknown, context?: { source?: string }) => context?.source) as Parameters<typeof JSON.parse>[1]) !== '1') {
  throw new Error('the gateway needs JSON.parse to give revivers the source text of numbers (Node 21+)');
}

/** Whether the double JSON.parse makes of a literal has the literal's decimal value (`0.1` yes; `123456789.123456789`, `1e400` no). */
const exactAsDouble = (literal: string): boolean => canonicalDecimal(Number(literal)) === canonicalDecimal(literal);

/**
 * JSON.parse that keeps every number literal a double would change: such a literal (`123456789.123456789`,
 * `1e400`) becomes a `NumberLiteral` with its text (read from the source by the reviver), which the contracts'
 * decimal schemas read exactly and every other schema refuses, a string one included, instead of being rounded
 * silently. Other numbers stay numbers. Like Fastify's own parser (secure-json-parse), a `__proto__` key or a
 * `constructor.prototype` is refused.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, ((key: string, value: unknown, context?: { source?: string }) => {
    if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'))) {
      throw invalidBody('Object contains a forbidden prototype property.');
    }
    if (typeof value === 'number' && context?.source !== undefined && !exactAsDouble(context.source)) return new NumberLiteral(context.source);
    return value;
  }) as Parameters<typeof JSON.parse>[1]);
}

/**
 * The gateway's `application/json` body parser (Nest's `useBodyParser`): parseJsonExact over the UTF-8 text, with
 * Fastify's errors for an empty or invalid body (400).
 */
export function exactJsonBodyParser(_request: unknown, body: Buffer, done: (err: Error | null, parsed?: unknown) => void): void {
  const text = utf8BodyText(body);
  if (text instanceof Error) {
    done(text);
    return;
  }
  if (text === '') {
    done(Object.assign(new Error('Body cannot be empty when content-type is set to application/json'), { statusCode: 400, code: 'FST_ERR_CTP_EMPTY_JSON_BODY' }));
    return;
  }
  let parsed: unknown;
  try {
    parsed = parseJsonExact(text);
  } catch (err) {
    done((err as { statusCode?: number }).statusCode ? (err as Error) : invalidBody((err as Error).message));
    return;
  }
  done(null, parsed);
}

/**
 * Marks a decimal in a reply: JSON.stringify writes it as a string `"<marker><digits>"` that the reply serializer
 * turns into the bare number. The marker is random per process, so no text a user stored can imitate it.
 */
const MARKER = `dec${randomBytes(12).toString('hex')}:`;
const MARKED = new RegExp(`"${MARKER}(-?\\d+(?:\\.\\d+)?)"`, 'g');

class JsonDecimal {
  constructor(private readonly text: string) {}
  toJSON(): string {
    return MARKER + this.text;
  }
}

/**
 * Fastify's reply serializer for the gateway: JSON.stringify, with the decimals withDecimalNumbers marked written
 * as JSON numbers with exactly their digits (`42290747.88`, `999999999999999.99999999`), which a double could not
 * carry.
 */
export function installDecimalReplySerializer(fastify: FastifyInstance): void {
  fastify.setReplySerializer((payload) => {
    const text = JSON.stringify(payload);
    return text.includes(MARKER) ? text.replace(MARKED, '$1') : text;
  });
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  out?: z.ZodType;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * A reply whose `decimalOutputSchema` values (decimal text on NATS), found by following `schema`, are answered as
 * JSON numbers with exactly those digits: `"42290747.88"` is written 42290747.88, never as a double's
 * 42290747.88000001. Needs installDecimalReplySerializer. Fields the schema does not describe are copied as they are.
 */
export function withDecimalNumbers<T>(schema: z.ZodType, value: T): T {
  return convert(schema, value) as T;
}

function convert(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (isDecimalOutput(schema)) return typeof value === 'string' && DECIMAL_TEXT.test(value) ? new JsonDecimal(value) : value;
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = def.shape?.[k] ? convert(def.shape[k], v) : v;
      return out;
    }
    case 'array':
      return Array.isArray(value) && def.element ? value.map((v) => convert(def.element!, v)) : value;
    case 'nullable':
    case 'optional':
    case 'default':
    case 'readonly':
      return def.innerType ? convert(def.innerType, value) : value;
    case 'pipe':
      return def.out ? convert(def.out, value) : value;
    default:
      return value;
  }
}
