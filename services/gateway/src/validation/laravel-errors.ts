import type { z } from 'zod';

/** `per_page` -> `per page`, `assetable.id` stays: how Laravel names an attribute in a message. */
export function attributeName(path: readonly PropertyKey[]): string {
  return path.map(String).join('.').replace(/_/g, ' ');
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
};

type Issue = z.core.$ZodRawIssue | z.core.$ZodIssue;

/** JSON has no undefined: a type or value issue on an undefined input is a key that was not sent. */
function isMissing(issue: Issue): boolean {
  return (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') && issue.input === undefined;
}

/**
 * The Laravel wording of a zod issue on the field `attr` (`The name field is required.`, `The per page field must not
 * be greater than 100.`): the validation library's own wording ("Invalid input: expected ...") never reaches a client.
 */
export function laravelMessage(issue: Issue, attr: string): string {
  const field = `The ${attr} field`;
  if (isMissing(issue)) return `${field} is required.`;
  switch (issue.code) {
    case 'invalid_type':
      return `${field} must be ${TYPE_NAMES[issue.expected] ?? `of type ${issue.expected}`}.`;
    case 'too_small': {
      const min = String(issue.minimum);
      if (issue.origin === 'string') return issue.minimum === 1 ? `${field} is required.` : `${field} must be at least ${min} characters.`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${field} must have at least ${min} items.`;
      return issue.inclusive === false ? `${field} must be greater than ${min}.` : `${field} must be at least ${min}.`;
    }
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'string') return `${field} must not be greater than ${max} characters.`;
      if (issue.origin === 'array' || issue.origin === 'set') return `${field} must not have more than ${max} items.`;
      return issue.inclusive === false ? `${field} must be less than ${max}.` : `${field} must not be greater than ${max}.`;
    }
    case 'invalid_value':
      return `The selected ${attr} is invalid.`;
    case 'invalid_format':
      return `${field} format is invalid.`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${String(issue.divisor)}.`;
    case 'unrecognized_keys':
      return `${field} is not allowed.`;
    default:
      return `${field} is invalid.`;
  }
}

/** What to call the whole input when an issue is about it rather than one field. */
export type RootKey = 'body' | 'query';

/**
 * Laravel field errors of a failed parse: each message under its field's own name (`assetable.id`), issues about
 * the whole input under `rootKey`, an unknown key under that key. A message the schema wrote itself is kept, except
 * for a missing field: "is required", which a type message such as "must be a string" does not say.
 */
export function laravelFieldErrors(error: z.ZodError, rootKey: RootKey): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (key: string, message: string) => {
    const list = (out[key] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key].join('.'), laravelMessage(issue, attributeName([...issue.path, key])));
      continue;
    }
    // A missing field is "required", whatever type message the schema wrote for it.
    const own = issue.message !== NO_MESSAGE && !isMissing(issue);
    if (issue.path.length === 0) {
      add(rootKey, own ? issue.message : issue.code === 'invalid_type' ? rootTypeMessage(rootKey) : `The ${rootKey === 'body' ? 'request body' : 'query string'} is invalid.`);
      continue;
    }
    add(issue.path.join('.'), own ? issue.message : laravelMessage(issue, attributeName(issue.path)));
  }
  return out;
}

function rootTypeMessage(rootKey: RootKey): string {
  return rootKey === 'body' ? 'The request body must be a JSON object.' : 'The query string is invalid.';
}

/**
 * Marks an issue the schema wrote no message for; laravelFieldErrors words it once the issue's full path is known
 * (an error map only sees the path below the schema that raised it).
 */
const NO_MESSAGE = '\u0000no message';

/** Parse options for laravelFieldErrors: issues without a message of their own are marked, and keep their input (for "required"). */
export const laravelParseOptions: z.core.ParseContext<z.core.$ZodIssue> = {
  reportInput: true,
  error: () => NO_MESSAGE,
};
