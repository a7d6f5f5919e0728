import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Repository root (bench/dist/support → ../../..). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Starts a Node script of the repo as a child process; its output is shown only on failure. */
export function startNode(script: string, env: Record<string, string>, name: string): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, [script], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  const keep = (b: Buffer) => {
    child.output.push(b.toString());
    if (child.output.length > 200) child.output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code) => {
    if (code && code !== 0 && code !== 143) process.stderr.write(`[${name}] exited ${code}\n${child.output.join('')}\n`);
  });
  return child;
}

/** Polls a URL until it answers 2xx. */
export async function waitForOk(url: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready in ${timeoutMs} ms`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}
