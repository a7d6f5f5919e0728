/**
 * `npm run bench -- web [--runs N] [--positions N]`: the web client's figures in the system Chromium, on loopback,
 * against the whole product started as the browser tests start it (support/web-figures.main.ts, run from source
 * because it uses test/e2e/support, which the bench build does not compile). Each figure is printed beside a
 * baseline measured the same way in the same run, interleaved with it:
 *   screener LCP (the table)                      beside  the sign-in screen's LCP (same server and bundle, no data);
 *   portfolio of 200 positions interactive        beside  the same page with one position.
 * "Interactive" is the time from navigation until the holdings table shows every row and a click on a sort header
 * has re-sorted it. Targets: screener table painted under 1 s, portfolio interactive under 1.5 s.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseOptions } from './support/args.js';
import { percentile } from './support/percentile.js';
import { repoRoot } from './support/processes.js';

const LCP_TARGET_MS = 1000;
const INTERACTIVE_TARGET_MS = 1500;

interface Figures {
  positions: number;
  runs: number;
  screener: number[];
  signIn: number[];
  portfolio: { drawn: number; interactive: number }[];
  portfolioOne: { drawn: number; interactive: number }[];
}

/** Runs the browser half and returns the JSON line it prints; its other output is shown only on failure. */
function measure(runs: number, positions: number): Promise<Figures> {
  const child = spawn(
    process.execPath,
    ['--conditions=development', '--import', join(repoRoot, 'platform/src/testing/ts-source-hooks.mjs'), join(repoRoot, 'bench/src/support/web-figures.main.ts')],
    { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn', WEB_BENCH_RUNS: String(runs), WEB_BENCH_POSITIONS: String(positions) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{"positions"'));
      if (code === 0 && line) resolve(JSON.parse(line) as Figures);
      else reject(new Error(`the browser figures failed (exit ${code}):\n${stdout}\n${stderr}`));
    });
  });
}

export async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, { runs: 5, positions: 200 });
  const f = await measure(o.runs, o.positions);
  const row = (what: string, xs: number[], target?: number) => {
    const median = percentile(xs, 50);
    const max = Math.max(...xs);
    const verdict = target === undefined ? '' : median < target ? `met (< ${target})` : `NOT met (< ${target})`;
    console.log(`${what.padEnd(44)}${median.toFixed(0).padStart(10)}${max.toFixed(0).padStart(10)}  ${verdict}`);
  };
  console.log(`Chromium, loopback, ${f.runs} cold loads each (fresh browser context), interleaved; ms from navigation start`);
  // The stack, Chromium and this process share the machine: a busy one slows a figure and its baseline alike.
  console.log(`load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores at the end`);
  console.log(`${'figure'.padEnd(44)}${'median'.padStart(10)}${'max'.padStart(10)}  target`);
  row('screener: largest contentful paint', f.screener, LCP_TARGET_MS);
  row('  baseline: sign-in screen LCP', f.signIn);
  row(`portfolio, ${f.positions} positions: interactive`, f.portfolio.map((p) => p.interactive), INTERACTIVE_TARGET_MS);
  row(`  of which all ${f.positions} rows drawn`, f.portfolio.map((p) => p.drawn));
  row('  baseline: the same page, 1 position', f.portfolioOne.map((p) => p.interactive));
}
