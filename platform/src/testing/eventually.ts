/**
 * Polls `read` until `ok` holds of its value (every `intervalMs`, at most `timeoutMs`) and returns that value;
 * otherwise fails naming `what` and the last value read.
 */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** `eventually` until `read` gives a truthy value, which it returns. */
export async function eventuallyTruthy<T>(read: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  return (await eventually(read, Boolean, what, timeoutMs, intervalMs)) as T;
}
