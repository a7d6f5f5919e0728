import type { Db, Tx } from '@invest/platform';
import { schedstat } from './cpu-budget.js';

/** Names a statement for the breakdown; `undefined` falls back to its first words. */
export type StatementLabel = (sql: string) => string | undefined;

const firstWords = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 40);


/**
 * Where a writer's transaction spends its time, without touching the writer: `timed(db)` is the same database
 * whose `transaction` times each statement (by label, summed per transaction), the JavaScript between them
 * (`js`), getting a connection and BEGIN (`begin`), and COMMIT (`commit`). On a shared machine wall time is
 * mostly waiting for a CPU, so it also reads the CPU time the transaction's Postgres backend used and its
 * wait for a CPU (`server CPU`, `server waiting for a CPU`; the server is local), and this process's
 * (`client CPU`). Reading the backend's pid costs one round trip, recorded as `probe`, outside every phase:
 * subtract it from a time measured around the transaction.
 */
export class PhaseTimer {
  /** One map per transaction: phase → milliseconds. */
  readonly runs: Map<string, number>[] = [];

  constructor(private readonly label: StatementLabel = () => undefined) {}

  timed(db: Db): Db {
    const runs = this.runs;
    const label = (sql: string) => this.label(sql) ?? firstWords(sql);
    const transaction = async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
      const phases = new Map<string, number>();
      const add = (phase: string, ms: number) => phases.set(phase, (phases.get(phase) ?? 0) + ms);
      const start = performance.now();
      const cpu = process.cpuUsage();
      let mark = start;
      let pid = 0;
      let server: ReturnType<typeof schedstat>;
      const result = await db.transaction(async (tx) => {
        const began = performance.now();
        add('begin', began - start);
        [{ pid } = { pid: 0 }] = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
        server = schedstat(pid);
        mark = performance.now();
        add('probe', mark - began);
        const timedTx: Tx = {
          em: tx.em,
          async query(sql, params, opts) {
            const sent = performance.now();
            add('js', sent - mark);
            const before = schedstat(pid);
            try {
              return await tx.query(sql, params, opts);
            } finally {
              mark = performance.now();
              add(label(sql), mark - sent);
              const after = schedstat(pid);
              if (before && after) add(`server CPU: ${label(sql)}`, (after.run - before.run) / 1e6);
            }
          },
        };
        const r = await fn(timedTx);
        const end = performance.now();
        add('js', end - mark);
        mark = end;
        return r;
      });
      add('commit', performance.now() - mark);
      add('transaction', performance.now() - start - phases.get('probe')!);
      const after = schedstat(pid);
      if (server && after) {
        add('server CPU', (after.run - server.run) / 1e6);
        add('server waiting for a CPU', (after.wait - server.wait) / 1e6);
      }
      const used = process.cpuUsage(cpu);
      add('client CPU', (used.user + used.system) / 1000);
      runs.push(phases);
      return result;
    };
    return Object.assign(Object.create(db) as Db, { transaction });
  }

  /** Forgets what was recorded (the warm-up). */
  reset(): void {
    this.runs.length = 0;
  }

  /** Phases in first-seen order with their p50 and p99 over the recorded transactions. */
  summary(percentile: (xs: number[], p: number) => number): { phase: string; p50: number; p99: number }[] {
    const runs = [...this.runs];
    const phases = [...new Set(runs.flatMap((r) => [...r.keys()]))];
    return phases.map((phase) => {
      const xs = runs.map((r) => r.get(phase) ?? 0);
      return { phase, p50: percentile(xs, 50), p99: percentile(xs, 99) };
    });
  }
}
