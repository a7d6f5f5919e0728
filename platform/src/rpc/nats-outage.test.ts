/**
 * A NATS outage longer than nats.js' default reconnect budget (10 attempts, 2 s apart) must not leave a
 * service deaf or a client failing forever: once NATS is back, requests are answered again. Runs a private
 * nats-server (the shared one cannot be stopped), so it is skipped where the binary is missing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Socket, createServer } from 'node:net';
import { Module, type INestMicroservice } from '@nestjs/common';
import { Subjects } from '@invest/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { createHealthController } from '../health/health.controller.js';
import { createLogger } from '../logging/logger.js';
import { RpcClient } from './rpc-client.js';
import { startRpcService } from './rpc-server.js';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? 'nats-server';
const available = (() => {
  try {
    execFileSync(NATS_SERVER, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startNats(port: number): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  // Ready when the port accepts connections.
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = new Socket();
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
      c.connect(port, '127.0.0.1');
    });
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nats-server did not start');
}

const stopNats = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

@Module({ controllers: [createHealthController('outage')] })
class OutageModule {}

describe.skipIf(!available)('NATS outage', () => {
  let nats: ChildProcess | undefined;
  let app: INestMicroservice | undefined;
  let rpc: RpcClient | undefined;
  afterAll(async () => {
    await Promise.resolve(rpc?.close()).catch(() => undefined);
    await app?.close().catch(() => undefined);
    if (nats) await stopNats(nats);
  });

  it('service and client answer again after NATS was away longer than the default reconnect budget', async () => {
    const port = await freePort();
    const natsUrl = `nats://127.0.0.1:${port}`;
    nats = await startNats(port);
    app = await startRpcService(OutageModule, { name: 'outage', natsUrl, logger: createLogger('outage', 'silent') });
    rpc = RpcClient.create({ natsUrl, name: 'outage-client', defaultTimeoutMs: 1000 });
    await rpc.connect();
    expect(await rpc.request(Subjects.healthPing('outage'), {})).toMatchObject({ ok: true });

    await stopNats(nats);
    // nats.js gives up after 10 reconnect attempts 2 s apart by default.
    await new Promise((r) => setTimeout(r, 25_000));
    nats = await startNats(port);

    const client = rpc;
    await expect
      .poll(() => client.request(Subjects.healthPing('outage'), {}).then(() => 'answered', (e: unknown) => String(e)), { timeout: 10_000, interval: 500 })
      .toBe('answered');
  }, 60_000);
});
