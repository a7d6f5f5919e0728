/**
 * Two instances of every service and of the gateway as real processes from dist/ (as `npm start` runs
 * them), on fresh databases and one bus prefix, with the outside providers faked in this process. Each
 * instance can be killed, paused and restarted; its last output lines are kept for a failure report.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, uniqueName } from '@invest/platform/testing/index';

export const SERVICES = ['screener', 'portfolios', 'billing', 'alerts', 'chat'] as const;
export type ServiceName = (typeof SERVICES)[number] | 'gateway';

const root = join(import.meta.dirname, '..', '..', '..');

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** One process of a service; `start()` again after a kill runs a new process with the same settings. */
export class Instance {
  child: ChildProcess | undefined;
  readonly output: string[] = [];
  /** Exits nobody asked for (a crash), with their last lines. */
  readonly crashes: string[] = [];
  private expectExit = false;
  private log: WriteStream | undefined;
  private serving = false;

  constructor(
    readonly service: ServiceName,
    readonly index: number,
    private readonly env: Record<string, string>,
  ) {}

  get name(): string {
    return `${this.service}#${this.index}`;
  }

  start(): void {
    const entry = join(root, 'services', this.service, 'dist', 'main.js');
    const child = spawn(process.execPath, ['--enable-source-maps', entry], { cwd: root, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.expectExit = false;
    this.serving = false;
    // Every line of every run of this instance, for reading after a failure (.runtime/chaos/<name>.log).
    mkdirSync(join(root, '.runtime', 'chaos'), { recursive: true });
    this.log ??= createWriteStream(join(root, '.runtime', 'chaos', `${this.service}-${this.index}.log`));
    this.log.write(`--- start ${new Date().toISOString()}\n`);
    for (const s of [child.stdout!, child.stderr!]) {
      let rest = '';
      s.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          if (!line) continue;
          const startLine = /"msg":"[\w ]*(started|listening)"/.test(line);
          if (startLine) this.serving = true;
          // What runs at info and above, as in production, plus the start line.
          if (!startLine && line.startsWith('{"level":"debug"')) continue;
          this.output.push(line);
          this.log?.write(`${line}\n`);
        }
        if (this.output.length > 400) this.output.splice(0, this.output.length - 400);
      });
    }
    child.on('exit', (code, signal) => {
      if (!this.expectExit) this.crashes.push(`${this.name} exited (${signal ?? code}):\n${this.output.slice(-20).join('\n')}`);
    });
    this.child = child;
  }

  /** Resolves once the process has logged that it serves (its "started" / "listening" line). */
  async started(timeoutMs = 90_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!this.serving) {
      if (this.child?.exitCode !== null || this.child?.signalCode !== null || Date.now() > end) throw new Error(`${this.name} did not start:\n${this.output.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Starts the process again as a supervisor would: one that exits before it serves (e.g. no NATS node
   * reachable at that moment) is started again a second later. Resolves with the number of attempts.
   */
  async restart(timeoutMs = 120_000): Promise<number> {
    const end = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const before = this.crashes.length;
      this.start();
      try {
        await this.started(Math.max(1000, end - Date.now()));
        return attempt;
      } catch (err) {
        if (Date.now() > end) throw err;
        // Exited while starting: a failed start, not a crash of a running instance.
        this.crashes.splice(before);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** SIGKILL: no shutdown hook runs, in-flight work is lost as in a crash. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.expectExit = true;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGCONT'); // a paused process must run to die of SIGTERM
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }
}

export interface StackOptions {
  natsUrl: string;
  replicas: number;
  rpcTimeoutMs: number;
  providers: Record<string, string>;
  jwtSecret: string;
  /** Extra variables for every process. */
  env?: Record<string, string>;
}

export interface ChaosStack {
  busPrefix: string;
  databases: Record<(typeof SERVICES)[number], string>;
  instances: Record<ServiceName, [Instance, Instance]>;
  gatewayUrls: [string, string];
  /** Variables of a service's processes (for job commands run beside them). */
  envOf(service: ServiceName): Record<string, string>;
  stop(): Promise<void>;
}

async function waitReady(url: string, instances: Instance[], timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    const crashed = instances.flatMap((i) => i.crashes);
    if (crashed.length) throw new Error(`an instance died while starting:\n${crashed.join('\n')}`);
    if (Date.now() > end) throw new Error(`${url}/ready not ok within ${timeoutMs / 1000} s:\n${instances.map((i) => `${i.name}: ${i.output.slice(-5).join('\n')}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Starts the first instance of everything, waits for the gateway's /ready (every service answering), then
 * the second ones: the first instances create the databases' schemas and the demo data, alone.
 */
export async function startChaosStack(opts: StackOptions): Promise<ChaosStack> {
  const busPrefix = `${uniqueName('chaos')}.`;
  const dbs = await Promise.all(SERVICES.map((s) => createTestDatabase(`chaos_${s}`)));
  const databases = Object.fromEntries(SERVICES.map((s, i) => [s, dbs[i]!.url])) as ChaosStack['databases'];
  const common: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'development',
    // debug: the "started" / "listening" line of each process (debug since the quiet start) tells when it
    // serves; the other debug lines are dropped as they arrive (see Instance.start).
    LOG_LEVEL: 'debug',
    NATS_URL: opts.natsUrl,
    BUS_PREFIX: busPrefix,
    JETSTREAM_REPLICAS: String(opts.replicas),
    RPC_TIMEOUT_MS: String(opts.rpcTimeoutMs),
    READY_SERVICES: SERVICES.join(','),
    AUTH_JWT_SECRET: opts.jwtSecret,
    ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_DATABASE_URL`, databases[s]])),
    ...opts.providers,
    ...opts.env,
  };
  delete common.DATABASE_URL;
  const ports = [await freePort(), await freePort()] as const;
  const envOf = (service: ServiceName, index = 0): Record<string, string> => (service === 'gateway' ? { ...common, PORT: String(ports[index]) } : common);
  const instances = Object.fromEntries(
    [...SERVICES, 'gateway' as const].map((s) => [s, [new Instance(s, 0, envOf(s, 0)), new Instance(s, 1, envOf(s, 1))]]),
  ) as ChaosStack['instances'];
  const gatewayUrls = ports.map((p) => `http://127.0.0.1:${p}`) as [string, string];
  const all = Object.values(instances).flat();
  const stack: ChaosStack = {
    busPrefix,
    databases,
    instances,
    gatewayUrls,
    envOf: (s) => envOf(s),
    async stop() {
      await Promise.all(all.map((i) => i.kill('SIGTERM')));
      for (const db of dbs) await db.drop().catch(() => undefined);
    },
  };
  try {
    for (const pair of Object.values(instances)) pair[0].start();
    await waitReady(gatewayUrls[0], all);
    for (const pair of Object.values(instances)) pair[1].start();
    await Promise.all(Object.values(instances).map((pair) => pair[1].started()));
    await waitReady(gatewayUrls[1], all);
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}
