import { ServiceError } from '@invest/platform/rpc/service-error';
import type { z } from 'zod';
import { attributeName, laravelFieldErrors, laravelParseOptions, type RootKey } from './laravel-errors.js';

/**
 * Strings that cannot be stored as given: Postgres text cannot hold NUL, and a lone UTF-16 surrogate (valid in JSON
 * as `"\ud800"`) becomes U+FFFD in a text column or is refused by jsonb. Each is named under its field, whatever the
 * route; a key that is itself such a string is reported under the root key.
 */
export function unstorableTextErrors(input: unknown, rootKey: RootKey): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (key: string, message: string) => {
    const list = (out[key] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  const problem = (s: string): string | undefined =>
    s.includes('\u0000') ? 'must not contain NUL characters' : /\p{Cs}/u.test(s) ? 'must be valid Unicode text (it has an unpaired surrogate)' : undefined;
  // Iterative, and each node points at its parent instead of copying its path: a deeply nested body must
  // neither overflow the stack nor cost quadratic time.
  interface Node {
    value: unknown;
    key?: string | number;
    parent?: Node;
  }
  const pathOf = (node: Node): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let n: Node | undefined = node; n?.parent; n = n.parent) path.push(n.key!);
    return path.reverse();
  };
  const stack: Node[] = [{ value: input }];
  while (stack.length) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      const p = problem(value);
      if (p) {
        const path = pathOf(node);
        add(path.length ? path.join('.') : rootKey, `The ${path.length ? `${attributeName(path)} field` : rootKey} ${p}.`);
      }
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, key: i, parent: node }));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const p = problem(k);
        if (p) add(rootKey, `The ${rootKey === 'body' ? 'request body' : 'query string'} has a key that ${p}.`);
        else stack.push({ value: v, key: k, parent: node });
      }
    }
  }
  return out;
}

function parseOr422<S extends z.ZodType>(schema: S, input: unknown, rootKey: RootKey, before: Record<string, string[]>): z.output<S> {
  // Parse options turn off zod's compiled fast path (about 3x slower): only a failed input is parsed again with them.
  const result = schema.safeParse(input);
  if (result.success && Object.keys(before).length === 0) return result.data as z.output<S>;
  const worded = result.success ? undefined : schema.safeParse(input, laravelParseOptions);
  const errors = { ...(worded && !worded.success ? laravelFieldErrors(worded.error, rootKey) : {}), ...before };
  throw ServiceError.validation(errors);
}

/**
 * A JSON request body validated with a contract schema; a failure is a 422 in the Laravel shape. No body at all
 * validates as `{}` (every required field is named); a body that is JSON but not an object is an error under `body`.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined) return parseOr422(schema, {}, 'body', {});
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ServiceError.validation({ body: ['The request body must be a JSON object.'] });
  }
  return parseOr422(schema, body, 'body', unstorableTextErrors(body, 'body'));
}

/**
 * A query string validated with a contract schema. A parameter given more than once (`?page=1&page=2`) is an error
 * under its name, whichever the route: which of the values was meant cannot be known.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const raw = query !== null && typeof query === 'object' ? (query as Record<string, unknown>) : {};
  return parseOr422(schema, raw, 'query', { ...unstorableTextErrors(raw, 'query'), ...repeatedQueryErrors(raw) });
}

/** The parameters of a parsed query string given more than once (Fastify makes them arrays), each with its error. */
export function repeatedQueryErrors(query: Record<string, unknown>): Record<string, string[]> {
  const repeated: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) repeated[key] = [`The ${attributeName([key])} parameter must be given only once.`];
  }
  return repeated;
}
