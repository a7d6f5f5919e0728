import { Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';

/**
 * Outcome of one check: `ok`; `timeout` (no answer in time); `unreachable` (NATS connection failed);
 * `unavailable` (nobody answers the service's ping subject, or it did not answer in time); `failing` (the service
 * answered and named problems of its own); `error`.
 */
export type CheckResult = 'ok' | 'timeout' | 'unreachable' | 'unavailable' | 'failing' | 'error';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
  failed: string[];
  /** What each `failing` service said is wrong (billing: charges with no fiscal receipt). */
  problems: Record<string, string[]>;
}

/** What the probe needs of the NATS connection: connect (cached by the client) and a server round trip. */
export interface NatsLink {
  connect(): Promise<unknown>;
}

interface Flushable {
  flush(): Promise<void>;
}

class Timeout extends Error {}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Timeout()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * `/ready`: NATS answers a round trip and every service in READY_SERVICES answers
 * `<service>.health.ping`, each within `timeoutMs`. Checks run in parallel.
 */
export class ReadinessProbe {
  constructor(
    private readonly rpc: RpcClient,
    private readonly nats: NatsLink,
    private readonly services: readonly string[],
    private readonly timeoutMs: number,
  ) {}

  async check(): Promise<ReadinessReport> {
    const names = ['nats', ...this.services];
    const problems: Record<string, string[]> = {};
    const results = await Promise.all([this.checkNats(), ...this.services.map((s) => this.checkService(s, problems))]);
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]!])) as Record<string, CheckResult>;
    const failed = names.filter((n) => checks[n] !== 'ok');
    return { ready: failed.length === 0, checks, failed, problems };
  }

  private async checkNats(): Promise<CheckResult> {
    try {
      const nc = (await within(this.nats.connect(), this.timeoutMs)) as Flushable;
      await within(nc.flush(), this.timeoutMs);
      return 'ok';
    } catch (err) {
      return err instanceof Timeout ? 'timeout' : 'unreachable';
    }
  }

  private async checkService(service: string, problems: Record<string, string[]>): Promise<CheckResult> {
    try {
      const reply = await this.rpc.request<{ ok?: unknown; problems?: unknown } | null>(Subjects.healthPing(service), {}, { timeoutMs: this.timeoutMs });
      if (reply?.ok === false) {
        problems[service] = Array.isArray(reply.problems) ? reply.problems.map(String) : [];
        return 'failing';
      }
      return 'ok';
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return code === 'unavailable' ? 'unavailable' : 'error';
    }
  }
}
