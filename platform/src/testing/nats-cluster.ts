import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accepts, freePort, NATS_SERVER } from './private-nats.js';

/** deploy/nats/cluster.conf: the cluster configuration of the deployment, used here as it is. */
export const NATS_CLUSTER_CONFIG = fileURLToPath(new URL('../../../deploy/nats/cluster.conf', import.meta.url));

export interface NatsClusterOptions {
  /** Nodes (default 3). */
  size?: number;
  /** Client ports of the nodes, in order (default: free loopback ports). HTTP and route ports likewise. */
  clientPorts?: number[];
  httpPorts?: number[];
  clusterPorts?: number[];
  /** Where the nodes keep their JetStream stores and logs (default: a fresh temporary directory, removed by `stop()`). */
  dataDir?: string;
  /** Configuration file (default deploy/nats/cluster.conf). */
  configFile?: string;
  /** How long `start()` waits for the cluster to elect a JetStream meta leader (default 30 s). */
  readyTimeoutMs?: number;
}

interface JszMeta {
  meta_cluster?: { leader?: string; cluster_size?: number; replicas?: { name: string; current: boolean; offline?: boolean }[] };
}

interface JszStreams {
  account_details?: { stream_detail?: { name: string; cluster?: { leader?: string } }[] }[];
}

async function getJson<T>(url: string, timeoutMs = 1_000): Promise<{ status: number; body: T } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: (await res.json()) as T };
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One node of a NatsCluster: its ports, store, and process. */
export class NatsNode {
  private child: ChildProcess | undefined;

  constructor(
    readonly name: string,
    readonly clientPort: number,
    readonly httpPort: number,
    readonly clusterPort: number,
    readonly storeDir: string,
    private readonly env: Record<string, string>,
    private readonly configFile: string,
    private readonly logFile: string,
  ) {}

  /** Where the running node writes its process id (`kill -9 $(cat …/n2.pid)` to lose it by hand). */
  get pidFile(): string {
    return this.logFile.replace(/\.log$/, '.pid');
  }

  /** The client URL of this node. */
  get url(): string {
    return `nats://127.0.0.1:${this.clientPort}`;
  }

  /** The monitoring base URL (`/healthz`, `/jsz`, `/routez`, `/connz`). */
  get monitorUrl(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the node (same ports, same store as before); resolves once it accepts client connections. */
  async start(): Promise<void> {
    if (this.running) return;
    const child = spawn(NATS_SERVER, ['-c', this.configFile, '-l', this.logFile, '-P', this.pidFile], { stdio: 'ignore', env: { ...process.env, ...this.env } });
    this.child = child;
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`nats-server ${this.name} exited with ${child.exitCode} (see ${this.logFile})`);
      if (await accepts(this.clientPort)) return;
      await sleep(50);
    }
    throw new Error(`nats-server ${this.name} did not start (see ${this.logFile})`);
  }

  /**
   * Resolves once the node reports itself healthy (`/healthz` 200: JetStream enabled, meta group and every
   * stream and consumer it holds caught up); a restarted node is then a full member again.
   */
  async waitHealthy(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < until) {
      const r = await getJson<{ status?: string; error?: string }>(`${this.monitorUrl}/healthz`);
      if (r?.status === 200) return;
      last = r?.body.error ?? r?.body;
      await sleep(100);
    }
    throw new Error(`nats-server ${this.name} not healthy after ${timeoutMs} ms: ${JSON.stringify(last)} (see ${this.logFile})`);
  }

  /** Kills the node (SIGKILL: no goodbye to clients or peers, like a crash). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    });
  }

  /** Freezes the node (SIGSTOP): its connections stay open but nothing is answered, as with a hung machine. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  /** Lets a frozen node run again (SIGCONT). */
  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** What this node's `/jsz` says about the JetStream meta group (leader, peers), or undefined if it does not answer. */
  async meta(): Promise<JszMeta['meta_cluster'] | undefined> {
    const r = await getJson<JszMeta>(`${this.monitorUrl}/jsz`);
    return r?.body.meta_cluster;
  }

  /** The leader of stream `name` as this node's `/jsz` knows it (only nodes holding a replica know). */
  async streamLeader(name: string): Promise<string | undefined> {
    const r = await getJson<JszStreams>(`${this.monitorUrl}/jsz?accounts=true&streams=true`);
    for (const account of r?.body.account_details ?? []) {
      const stream = account.stream_detail?.find((s) => s.name === name);
      if (stream) return stream.cluster?.leader || undefined;
    }
    return undefined;
  }
}

const live = new Set<NatsCluster>();
// A test run that dies without stop() must not leave nats-servers behind.
process.once('exit', () => {
  for (const c of live) {
    for (const n of c.nodes) {
      if (!n.running || !n.pid) continue;
      try {
        process.kill(n.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

/**
 * A private NATS JetStream cluster on loopback ports, started from deploy/nats/cluster.conf as it is (the
 * per-node values come from the environment, as in the deployment). Tests kill and restart its nodes; the
 * shared server of the other tests is never touched. `url` is the comma-separated `NATS_URL` of every node.
 */
export class NatsCluster {
  private constructor(
    readonly nodes: NatsNode[],
    private readonly dataDir: string,
    private readonly ownsDataDir: boolean,
  ) {}

  static async start(opts: NatsClusterOptions = {}): Promise<NatsCluster> {
    const size = opts.size ?? 3;
    const ports = async (given: number[] | undefined) => given ?? Promise.all(Array.from({ length: size }, () => freePort()));
    const [clientPorts, httpPorts, clusterPorts] = [await ports(opts.clientPorts), await ports(opts.httpPorts), await ports(opts.clusterPorts)];
    const ownsDataDir = opts.dataDir === undefined;
    const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'nats-cluster-'));
    if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true });
    const routes = `[${clusterPorts.map((p) => `nats://127.0.0.1:${p}`).join(', ')}]`;
    const nodes = clientPorts.map((clientPort, i) => {
      const name = `n${i + 1}`;
      const storeDir = join(dataDir, name);
      const env = {
        NATS_SERVER_NAME: name,
        NATS_LISTEN: `127.0.0.1:${clientPort}`,
        NATS_HTTP: `127.0.0.1:${httpPorts[i]}`,
        NATS_CLUSTER_LISTEN: `127.0.0.1:${clusterPorts[i]}`,
        NATS_ROUTES: routes,
        NATS_STORE_DIR: storeDir,
      };
      return new NatsNode(name, clientPort, httpPorts[i]!, clusterPorts[i]!, storeDir, env, opts.configFile ?? NATS_CLUSTER_CONFIG, join(dataDir, `${name}.log`));
    });
    // A port someone else listens on would look like a node that started.
    for (const n of nodes) if (await accepts(n.clientPort)) throw new Error(`port ${n.clientPort} is in use (another nats-server?)`);
    const cluster = new NatsCluster(nodes, dataDir, ownsDataDir);
    live.add(cluster);
    try {
      await Promise.all(nodes.map((n) => n.start()));
      await cluster.waitForMetaLeader(opts.readyTimeoutMs ?? 30_000);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** `NATS_URL` of the cluster: every node's client URL, comma-separated. */
  get url(): string {
    return this.nodes.map((n) => n.url).join(',');
  }

  /** Where stores and logs (`n1.log`, …) are. */
  get directory(): string {
    return this.dataDir;
  }

  node(name: string): NatsNode {
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  }

  /**
   * Waits until every running node names the same JetStream meta leader and it is running (after a start,
   * or after the leader was lost); returns its name.
   */
  async waitForMetaLeader(timeoutMs = 30_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const running = this.nodes.filter((n) => n.running);
      const leaders = await Promise.all(running.map((n) => n.meta().then((m) => m?.leader)));
      const leader = leaders[0];
      if (leader && leaders.every((l) => l === leader) && running.some((n) => n.name === leader)) return leader;
      await sleep(50);
    }
    throw new Error(`no JetStream meta leader after ${timeoutMs} ms (logs in ${this.dataDir})`);
  }

  /** The current meta leader as the running nodes see it (undefined while they disagree or have none). */
  async metaLeader(): Promise<string | undefined> {
    const running = this.nodes.filter((n) => n.running);
    const leaders = await Promise.all(running.map((n) => n.meta().then((m) => m?.leader)));
    return leaders.every((l) => l === leaders[0]) ? leaders[0] : undefined;
  }

  /** The leader of stream `name` as the running nodes holding it see it (undefined while they disagree or have none); read from `/jsz`, so it answers during elections. */
  async streamLeader(name: string): Promise<string | undefined> {
    const running = this.nodes.filter((n) => n.running);
    // Nodes without a replica of the stream do not know it; the others must agree.
    const leaders = (await Promise.all(running.map((n) => n.streamLeader(name)))).filter((l) => l !== undefined);
    return leaders[0] && leaders.every((l) => l === leaders[0]) ? leaders[0] : undefined;
  }

  /** Kills a node with SIGKILL (by name, e.g. `n2`); returns it. */
  async kill(name: string): Promise<NatsNode> {
    const n = this.node(name);
    await n.kill();
    return n;
  }

  /** Starts a killed node again with its store, and waits until it is healthy (caught up) again. */
  async restart(name: string, timeoutMs = 30_000): Promise<NatsNode> {
    const n = this.node(name);
    await n.start();
    await n.waitHealthy(timeoutMs);
    return n;
  }

  /** Kills every node and, when the cluster made its own directory, removes stores and logs. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    live.delete(this);
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
