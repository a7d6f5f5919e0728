import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The nats-server binary: `NATS_SERVER_BIN`, else `nats-server` on PATH. */
export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? 'nats-server';

/** Whether a `nats-server` binary (`NATS_SERVER_BIN`, else on PATH) can be run: outage tests need their own server. */
export const privateNatsAvailable: boolean = (() => {
  try {
    execFileSync(NATS_SERVER, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Whether the tests that start their own nats-server are skipped: only on a developer's machine without the
 * binary. In CI (`CI=true`) they run, and fail naming the missing binary, so a green CI never hides them.
 */
export const skipWithoutNatsServer: boolean = !privateNatsAvailable && process.env.CI !== 'true';

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = new Socket();
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
    c.connect(port, '127.0.0.1');
  });

/**
 * A nats-server of the test's own (with JetStream, on a free port) that the test may stop and start again,
 * to see what happens while NATS is away. The shared server of the other tests is never touched.
 */
export class PrivateNats {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly storeDir: string,
  ) {}

  static async start(): Promise<PrivateNats> {
    const nats = new PrivateNats(await freePort(), mkdtempSync(join(tmpdir(), 'private-nats-')));
    await nats.resume();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts the server again (same port, same JetStream store); resolves once it accepts connections. */
  async resume(): Promise<void> {
    if (this.child) return;
    this.child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], { stdio: 'ignore' });
    for (let i = 0; i < 200; i++) {
      if (await accepts(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('nats-server did not start');
  }

  /** Freezes the server (SIGSTOP): connections stay open but nothing is answered, as with a hung server. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** Kills the server (no goodbye to clients, like a crash or a network cut). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
