import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What a finished (or killed) process left. */
export interface ProcessOutcome {
  /** Exit status; null when it was killed (see `timedOut`). */
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

const HOOKS = fileURLToPath(new URL('./ts-source-hooks.mjs', import.meta.url));
// The project's own Node (package.json pins it), whichever Node launched the test runner.
const PROJECT_NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));

/**
 * Runs a TypeScript entry point (a service's `main.ts`, a command) as a real Node process from source,
 * with `env` added to this process's environment and `args` as its arguments, and waits for it to exit.
 * A process still running after `timeoutMs` is killed and reported as `timedOut`.
 */
export function runSourceMain(entry: string, env: Record<string, string>, timeoutMs = 30_000, args: readonly string[] = []): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawnSourceMain(entry, env, args);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr });
    });
  });
}

/**
 * Starts a TypeScript entry point as a real Node process from source, as `runSourceMain` does, and returns it
 * running (stdout and stderr piped), for tests that act on a live process (signals, SIGSTOP). The caller stops it.
 */
export function spawnSourceMain(entry: string, env: Record<string, string>, args: readonly string[] = []): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(existsSync(PROJECT_NODE) ? PROJECT_NODE : process.execPath, ['--conditions=development', '--import', HOOKS, entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
