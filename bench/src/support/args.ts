/** `--name N` from a benchmark's arguments, or `fallback` when it is not given. */
export function numberArg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

/**
 * Strict `--key N` options: every argument must be one of `defaults`' keys followed by a value that `valid`
 * accepts (positive integers unless said), else a usage error naming the options.
 */
export function parseOptions<O extends Record<string, number>>(args: string[], defaults: O, valid = (v: number) => Number.isInteger(v) && v > 0): O {
  const opts = { ...defaults };
  for (let i = 0; i < args.length; i++) {
    const key = args[i]?.replace(/^--/, '') as keyof O & string;
    const value = Number(args[i + 1]);
    if (key in opts && valid(value)) {
      (opts as Record<string, number>)[key] = value;
      i++;
    } else {
      throw new Error(`unknown or bad argument "${args[i]}" (use ${Object.keys(defaults).map((k) => `--${k} N`).join(' ')})`);
    }
  }
  return opts;
}
