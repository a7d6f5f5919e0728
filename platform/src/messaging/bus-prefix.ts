/**
 * `BUS_PREFIX` applied in one place. A prefix is joined with a separator: subjects with `.`
 * (`probe.portfolios.health.ping`), stream and consumer names with `_` (`probe_PORTFOLIOS_EVENTS`, where
 * dots are not allowed). An empty prefix means no prefix. Trailing dots are ignored, so `probe.` and
 * `probe` name the same environment.
 */

/** The prefix without trailing separators (`'probe.'` → `'probe'`). */
export function normalizeBusPrefix(prefix: string | undefined): string {
  return (prefix ?? '').replace(/\.+$/, '');
}

/** A NATS subject in this environment: `<prefix>.<subject>`, or `subject` alone without a prefix. */
export function busSubject(prefix: string | undefined, subject: string): string {
  const p = normalizeBusPrefix(prefix);
  return p ? `${p}.${subject}` : subject;
}

/** The subject without this environment's prefix, or undefined when it does not carry the prefix. */
export function unprefixedSubject(prefix: string | undefined, subject: string): string | undefined {
  const head = busSubject(prefix, '');
  return subject.startsWith(head) ? subject.slice(head.length) : undefined;
}

/**
 * A JetStream stream or consumer name in this environment: `<prefix>_<name>`, with every character a name
 * may not hold (dots, spaces, `*`, `>`) turned into `_`.
 */
export function busName(prefix: string | undefined, name: string): string {
  const p = normalizeBusPrefix(prefix).replace(/[^A-Za-z0-9_-]/g, '_');
  return p ? `${p}_${name}` : name;
}
