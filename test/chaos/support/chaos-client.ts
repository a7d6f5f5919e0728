/**
 * The chaos test's HTTP client: spreads requests over the two gateways as a load balancer would (a gateway
 * that refuses connections is skipped), counts every answer by kind and status, and keeps every write's
 * outcome and time so the summary can tell how long writes were refused.
 */
import { randomUUID } from 'node:crypto';
import { mintDevToken } from '@invest/gateway/auth/dev-token';

export interface Answer {
  status: number;
  /** A keyed create whose first run is still under way: 409 with `Retry-After` (ms), to be repeated then. */
  retryAfterMs?: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the checks read their fields
  body: any;
}

export interface RequestOptions {
  user?: string;
  body?: unknown;
  /** Sent as is (e.g. a signed form body). */
  raw?: { data: Buffer; headers: Record<string, string> };
  headers?: Record<string, string>;
  /** Counts towards "could the system accept writes". */
  write?: boolean;
  /** 4xx statuses this request may answer by design (anything else outside 2xx/503 is a failure). */
  allowed?: number[];
  /** A streamed answer (SSE): read to its end; a connection lost midway is not repeated (status 0). */
  stream?: boolean;
}

export class ChaosClient {
  /** kind → status (or `conn`: the gateway refused or dropped the connection) → count. */
  readonly counts = new Map<string, Map<string, number>>();
  /** Answers outside 2xx, 503 and the request's allowed 4xx. */
  readonly unexpected: string[] = [];
  readonly writes: { at: number; ok: boolean }[] = [];
  /** Creates answered 503 and repeated with their Idempotency-Key until they were answered. */
  readonly retriedCreates: { kind: string; key: string; attempts: number; status: number }[] = [];
  private next = 0;
  private readonly tokens = new Map<string, Promise<string>>();

  constructor(
    private readonly gateways: string[],
    private readonly jwtSecret: string,
  ) {}

  private count(kind: string, status: string): void {
    const m = this.counts.get(kind) ?? new Map<string, number>();
    m.set(status, (m.get(status) ?? 0) + 1);
    this.counts.set(kind, m);
  }

  token(user: string): Promise<string> {
    let t = this.tokens.get(user);
    if (!t) this.tokens.set(user, (t = mintDevToken(user, this.jwtSecret)));
    return t;
  }

  /** One request; a refused connection is retried on the other gateway (what a load balancer does). */
  async request(kind: string, method: string, path: string, opts: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers, ...opts.raw?.headers };
    if (opts.user) headers.authorization = `Bearer ${await this.token(opts.user)}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const payload = opts.raw?.data ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    for (let attempt = 0; ; attempt++) {
      const base = this.gateways[this.next++ % this.gateways.length]!;
      try {
        const res = await fetch(`${base}${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(opts.stream ? 60_000 : 20_000) });
        const text = await res.text();
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        this.count(kind, String(res.status));
        if (opts.write) this.writes.push({ at: Date.now(), ok: res.status < 300 });
        // A repeat of a keyed create while its first run (which may have outlived a killed gateway's request) is
        // still under way: the documented answer is 409 with Retry-After, repeated like a 503.
        const retryAfter = res.headers.get('retry-after');
        const stillRunning = res.status === 409 && headers['idempotency-key'] !== undefined && retryAfter !== null;
        const fine = res.status < 300 || res.status === 503 || stillRunning || (opts.allowed ?? []).includes(res.status);
        if (!fine) this.unexpected.push(`${kind} ${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
        return { status: res.status, body, ...(stillRunning ? { retryAfterMs: Math.max(0, Number(retryAfter) || 0) * 1000 } : {}) };
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
        if ((err as Error).name === 'TimeoutError') {
          this.count(kind, 'timeout');
          this.unexpected.push(`${kind} ${method} ${path} → no (complete) answer within ${opts.stream ? 60 : 20} s`);
          return { status: 0, body: undefined };
        }
        if (opts.stream && cause !== 'ECONNREFUSED') {
          // The gateway died while streaming: the client sees a cut stream and may reload the answer.
          this.count(kind, 'cut');
          return { status: 0, body: undefined };
        }
        this.count(kind, 'conn');
        if (opts.write) this.writes.push({ at: Date.now(), ok: false });
        if (attempt > 200) throw new Error(`${kind}: no gateway answers (${cause})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /**
   * A create with an Idempotency-Key, repeated with the same key while it answers 503 (the outcome may be
   * unknown) or 409 with Retry-After (its first run is still under way), for at most `retryForMs`. Resolves with
   * the last answer.
   */
  async create(kind: string, path: string, user: string, body: unknown, opts: { allowed?: number[]; retryForMs?: number } = {}): Promise<Answer & { key: string }> {
    const key = randomUUID();
    const until = Date.now() + (opts.retryForMs ?? 60_000);
    for (let attempts = 1; ; attempts++) {
      const a = await this.request(kind, 'POST', path, { user, body, headers: { 'idempotency-key': key }, write: true, allowed: opts.allowed });
      if ((a.status !== 503 && a.retryAfterMs === undefined) || Date.now() > until) {
        if (attempts > 1) this.retriedCreates.push({ kind, key, attempts, status: a.status });
        return { ...a, key };
      }
      await new Promise((r) => setTimeout(r, Math.max(a.retryAfterMs ?? 0, 200 + Math.random() * 300)));
    }
  }

  /** Longest time from a refused write to the next accepted one. */
  longestWriteOutageMs(): number {
    const w = [...this.writes].sort((a, b) => a.at - b.at);
    let longest = 0;
    let failingSince: number | undefined;
    for (const x of w) {
      if (!x.ok) failingSince ??= x.at;
      else if (failingSince !== undefined) {
        longest = Math.max(longest, x.at - failingSince);
        failingSince = undefined;
      }
    }
    return longest;
  }
}
