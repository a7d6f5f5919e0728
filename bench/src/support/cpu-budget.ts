import { readdirSync, readFileSync } from 'node:fs';

/** Processes (or one thread, `pid/tid`) whose CPU time is summed under one name. */
export type CpuGroups = Record<string, readonly string[]>;

/** Nanoseconds each group has run on a CPU so far (Linux schedstat, per thread: nanosecond resolution). */
export type CpuReading = Record<string, number>;

/**
 * Nanoseconds a thread (by default the process's main thread) has run on a CPU and waited for one (Linux
 * schedstat), or undefined where unreadable (not Linux, or it ended meanwhile).
 */
export function schedstat(pid: number | string, tid: number | string = pid): { run: number; wait: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: run!, wait: wait! };
  } catch {
    return undefined;
  }
}

// A thread or process that ended between the listing and the read counts as nothing.
const threadRunNs = (pid: string, tid: string): number => schedstat(pid, tid)?.run ?? 0;

function runNs(entry: string): number {
  const [pid, tid] = entry.split('/') as [string, string | undefined];
  if (tid) return threadRunNs(pid, tid);
  let sum = 0;
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) sum += threadRunNs(pid, t);
  } catch {
    return 0;
  }
  return sum;
}

/** The CPU time each group has used so far; zeros where /proc is not readable (not Linux). */
export function readCpu(groups: CpuGroups): CpuReading {
  return Object.fromEntries(Object.entries(groups).map(([name, entries]) => [name, entries.reduce((s, e) => s + runNs(e), 0)]));
}

/** Milliseconds of CPU each group used between two readings. */
export function cpuSpent(before: CpuReading, after: CpuReading): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, Math.max(0, (after[k]! - (before[k] ?? 0)) / 1e6)]));
}

/** The pids of the running processes named `name` (the comm of /proc/<pid>/stat), e.g. every `postgres`. */
export function pidsNamed(name: string): string[] {
  const pids: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** A process's (by default this one's) main thread (`pid/pid`) and its other threads (V8's compiler and GC helpers, libuv's pool). */
export function ownThreads(of: number = process.pid): { main: string[]; others: string[] } {
  const pid = String(of);
  const others = readdirSync(`/proc/${pid}/task`)
    .filter((t) => t !== pid)
    .map((t) => `${pid}/${t}`);
  return { main: [`${pid}/${pid}`], others };
}
