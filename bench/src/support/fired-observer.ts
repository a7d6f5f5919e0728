/**
 * A subscriber in a process of its own, for benchmarks that time messages from a publish to their arrival
 * on the bus: kept off the measured process, whose thread would otherwise also parse every message it
 * times (and delay its own timestamps while busy). Started by `startObserver`; driven over the IPC channel.
 */
import { fork } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { connectBus } from '@invest/platform/messaging/bus';

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
  /** The observer process's pid (its CPU time is part of a run's budget). */
  pid: number;
}

/** Starts the observer process, subscribed to `subject` (already prefixed) on NATS at `natsUrl`. */
export async function startObserver(natsUrl: string, subject: string): Promise<Observer> {
  // Without the measured process's Node and V8 flags (`--trace-opt`, `--cpu-prof`, …): those are for it alone.
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
    pid: child.pid!,
  };
}

async function serve(): Promise<void> {
  let times: bigint[] = [];
  const reply = (r: Reply) => process.send!(r);
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (command: Command) => {
    if ('connect' in command) {
      const { natsUrl, subject } = command.connect;
      const plain = /^nats:\/\/([^@/,:]+):(\d+)\/?$/.exec(natsUrl);
      if (plain) {
        await subscribeRaw(plain[1]!, Number(plain[2]), subject, () => void times.push(process.hrtime.bigint()));
      } else {
        const bus = await connectBus({ natsUrl, name: 'bench-observer' });
        bus.nc.subscribe(subject, { callback: () => void times.push(process.hrtime.bigint()) });
        await bus.nc.flush();
      }
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

/**
 * Subscribes to `subject` over the NATS client protocol itself (CONNECT, SUB, PING/PONG, then MSG/HMSG frames)
 * and calls `onMessage` as each message's last byte arrives, without parsing it: this process stands for
 * another service, on the same two cores as the one measured, and nats.js's parser and the objects it builds
 * for each message cost this process 13–25 µs a message (4–86 ms of CPU a run, read by the run's CPU budget).
 * Resolves once the server answered the PING sent after the SUB (the subscription is in place), with a close.
 */
export function subscribeRaw(host: string, port: number, subject: string, onMessage: () => void): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let ready = false;
    let pending: Buffer | undefined;
    // Bytes of the current message's payload (and its CRLF) still to come.
    let skip = 0;
    socket.on('error', (err) => (ready ? process.stderr.write(`[observer] ${String(err)}\n`) : reject(err)));
    socket.on('connect', () => {
      socket.write(`CONNECT {"verbose":false,"pedantic":false,"headers":true,"protocol":1,"name":"bench-observer"}\r\nSUB ${subject} 1\r\nPING\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      const buf = pending ? Buffer.concat([pending, chunk]) : chunk;
      pending = undefined;
      let at = 0;
      while (at < buf.length) {
        if (skip > 0) {
          const n = Math.min(skip, buf.length - at);
          skip -= n;
          at += n;
          if (skip === 0) onMessage();
          continue;
        }
        const end = buf.indexOf('\r\n', at);
        if (end < 0) {
          pending = buf.subarray(at);
          break;
        }
        const line = buf.toString('latin1', at, end);
        at = end + 2;
        if (line.startsWith('MSG ') || line.startsWith('HMSG ')) {
          // The last field is the size of what follows (for HMSG, headers and payload), then a CRLF.
          skip = Number(line.slice(line.lastIndexOf(' ') + 1)) + 2;
        } else if (line === 'PING') {
          socket.write('PONG\r\n');
        } else if (line === 'PONG' && !ready) {
          ready = true;
          resolve({ close: () => socket.destroy() });
        } else if (line.startsWith('-ERR')) {
          const err = new Error(`NATS: ${line}`);
          if (ready) process.stderr.write(`[observer] ${err.message}\n`);
          else reject(err);
        }
      }
    });
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) void serve();
