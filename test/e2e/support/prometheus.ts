/**
 * A real Prometheus for the observability tests: Debian's `prometheus` package (with promtool), installed by
 * scripts/ensure-prometheus.mjs when missing, as the browser tests install chromium. Each test starts its own
 * server on a free port with a temporary data dir, never the packaged service on :9090.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@invest/platform/testing/index';

const root = new URL('../../../', import.meta.url).pathname;
/** The shipped Prometheus files: scrape configuration, alert rules, rule tests. */
export const PROMETHEUS_DEPLOY_DIR = join(root, 'deploy', 'prometheus');
/** The shipped Grafana dashboard. */
export const GRAFANA_DASHBOARD = join(root, 'deploy', 'grafana', 'invest-dashboard.json');

let ensured = false;

/** Installs Debian's prometheus when missing (checked once per test file); the paths of prometheus and promtool. */
export function ensurePrometheus(): { prometheus: string; promtool: string } {
  if (!ensured) execFileSync(process.execPath, [join(root, 'scripts', 'ensure-prometheus.mjs')], { stdio: ['ignore', 'inherit', 'inherit'] });
  ensured = true;
  return { prometheus: process.env.PROMETHEUS_PATH || '/usr/bin/prometheus', promtool: process.env.PROMTOOL_PATH || '/usr/bin/promtool' };
}

/** Runs promtool with `args`; its exit code and everything it printed. */
export function promtool(args: string[], cwd = root): { status: number | null; output: string } {
  const r = spawnSync(ensurePrometheus().promtool, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}${r.error ? r.error.message : ''}` };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RunningPrometheus {
  url: string;
  /** The directory of its configuration and data (removed by `stop`). */
  dir: string;
  /** GET /api/v1/<path>; the `data` of a successful answer. */
  api<T = unknown>(path: string): Promise<T>;
  /** An instant query: each series' labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The alerts of the rules, pending and firing. */
  alerts(): Promise<{ labels: Record<string, string>; state: string; value: string }[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** The scrape targets (host:port), all in one job `invest` like deploy/prometheus/prometheus.yml. */
  targets: string[];
  /** Rule files' contents, written beside the configuration. */
  rules: Record<string, string>;
  scrapeIntervalSeconds?: number;
  evaluationIntervalSeconds?: number;
}

/** Starts Prometheus on a free port with a temporary data dir; resolves once it is ready. */
export async function startPrometheus(opts: PrometheusOptions): Promise<RunningPrometheus> {
  const { prometheus } = ensurePrometheus();
  const dir = mkdtempSync(join(tmpdir(), 'invest-prometheus-'));
  const every = `${opts.scrapeIntervalSeconds ?? 1}s`;
  for (const [name, text] of Object.entries(opts.rules)) writeFileSync(join(dir, name), text);
  // JSON is YAML: the configuration of the shipped prometheus.yml with the test's targets and intervals.
  const config = {
    global: { scrape_interval: every, scrape_timeout: every, evaluation_interval: `${opts.evaluationIntervalSeconds ?? 1}s` },
    rule_files: Object.keys(opts.rules),
    scrape_configs: [{ job_name: 'invest', honor_labels: true, static_configs: [{ targets: opts.targets }] }],
  };
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child: ChildProcess = spawn(
    prometheus,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (chunk: Buffer): void => {
    log = (log + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}/api/v1/${path}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error ?? res.status}`);
    return body.data;
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${log}`);
        return fetch(`${url}/-/ready`).then((r) => r.status, () => 0);
      },
      (status) => status === 200,
      'prometheus ready',
      30_000,
      100,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    dir,
    api,
    async query(expr) {
      const data = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`query?query=${encodeURIComponent(expr)}`);
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async alerts() {
      return (await api<{ alerts: { labels: Record<string, string>; state: string; value: string }[] }>('alerts')).alerts;
    },
    stop,
  };
}
