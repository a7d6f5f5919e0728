/**
 * A subscriber in a process of its own, for benchmarks that time messages from a publish to their arrival
 * on the bus: kept off the measured process, whose thread would otherwise also parse every message it
 * times (and delay its own timestamps while busy). Started by `startObserver`; driven over the IPC channel.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectBus } from '@invest/platform';

type Command = { connect: { natsUrl: string; subject: string } } | { reset: true } | { collect: { expected: number; timeoutMs: number; settleMs: number } };
type Reply = { ready: true } | { reset: true } | { times: string[] };

/** The observer as the measuring process sees it. */
export interface Observer {
  /** Forgets what arrived so far (before a publish). */
  reset(): Promise<void>;
  /**
   * Waits until `expected` messages arrived (or `timeoutMs`), then `settleMs` more for any beyond, and returns
   * each arrival's `process.hrtime.bigint()`: the system's monotonic clock, the same in both processes.
   */
  collect(expected: number, timeoutMs?: number, settleMs?: number): Promise<bigint[]>;
  close(): void;
}

/** Starts the observer process, subscribed to `subject` (already prefixed) on NATS at `natsUrl`. */
export async function startObserver(natsUrl: string, subject: string): Promise<Observer> {
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const replies: ((reply: Reply) => void)[] = [];
  child.on('message', (reply: Reply) => replies.shift()?.(reply));
  const ask = (command: Command) =>
    new Promise<Reply>((resolve, reject) => {
      replies.push(resolve);
      child.send(command, (err) => err && reject(err));
    });
  await ask({ connect: { natsUrl, subject } });
  return {
    reset: async () => void (await ask({ reset: true })),
    collect: async (expected, timeoutMs = 120_000, settleMs = 300) => {
      const reply = await ask({ collect: { expected, timeoutMs, settleMs } });
      return 'times' in reply ? reply.times.map(BigInt) : [];
    },
    close: () => void child.kill(),
  };
}

async function serve(): Promise<void> {
  let times: bigint[] = [];
  const reply = (r: Reply) => process.send!(r);
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (command: Command) => {
    if ('connect' in command) {
      const bus = await connectBus({ natsUrl: command.connect.natsUrl, name: 'bench-observer' });
      bus.nc.subscribe(command.connect.subject, { callback: () => void times.push(process.hrtime.bigint()) });
      await bus.nc.flush();
      reply({ ready: true });
    } else if ('reset' in command) {
      times = [];
      reply({ reset: true });
    } else {
      const { expected, timeoutMs, settleMs } = command.collect;
      const until = Date.now() + timeoutMs;
      while (times.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
      await new Promise((r) => setTimeout(r, settleMs));
      reply({ times: times.map(String) });
    }
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) void serve();
