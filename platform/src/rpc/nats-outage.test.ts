/**
 * A NATS outage longer than nats.js' default reconnect budget (10 attempts, 2 s apart) must not leave a
 * service deaf or a client failing forever: once NATS is back, requests are answered again. Runs a private
 * nats-server (the shared one cannot be stopped), so it is skipped where the binary is missing.
 */
import { Module, type INestMicroservice } from '@nestjs/common';
import { Subjects } from '@invest/contracts';
import { ErrorCode } from '@invest/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { createHealthController } from '../health/health.controller.js';
import { createLogger } from '../logging/logger.js';
import { PrivateNats, skipWithoutNatsServer } from '../testing/private-nats.js';
import { testNatsUrl } from '../testing/test-env.js';
import { RpcClient } from './rpc-client.js';
import { startRpcService } from './rpc-server.js';

@Module({ controllers: [createHealthController('outage')] })
class OutageModule {}

describe.skipIf(skipWithoutNatsServer)('NATS outage', () => {
  let nats: PrivateNats | undefined;
  let app: INestMicroservice | undefined;
  let rpc: RpcClient | undefined;
  afterAll(async () => {
    await Promise.resolve(rpc?.close()).catch(() => undefined);
    await app?.close().catch(() => undefined);
    await nats?.stop();
  });

  it('service and client answer again after NATS was away longer than the default reconnect budget', async () => {
    nats = await PrivateNats.start();
    app = await startRpcService(OutageModule, { name: 'outage', natsUrl: nats.url, logger: createLogger('outage', 'silent') });
    rpc = RpcClient.create({ natsUrl: nats.url, name: 'outage-client', defaultTimeoutMs: 1000 });
    await rpc.connect();
    expect(await rpc.request(Subjects.healthPing('outage'), {})).toMatchObject({ ok: true });

    await nats.kill();
    // nats.js gives up after 10 reconnect attempts 2 s apart by default.
    await new Promise((r) => setTimeout(r, 25_000));
    await nats.resume();

    const client = rpc;
    await expect
      .poll(() => client.request(Subjects.healthPing('outage'), {}).then(() => 'answered', (e: unknown) => String(e)), { timeout: 10_000, interval: 500 })
      .toBe('answered');
  }, 60_000);
});

describe('RpcClient after close()', () => {
  it('answers unavailable instead of opening a new connection', async () => {
    const rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'closed-client', defaultTimeoutMs: 500 });
    await rpc.connect();
    await rpc.close();
    const err = await rpc.request(Subjects.healthPing('nobody'), {}).catch((e: unknown) => e);
    expect((err as { code?: unknown }).code).toBe(ErrorCode.Unavailable);
    // Nothing was reopened: unwrapping the proxy's connection still fails.
    expect(() => (rpc as unknown as { proxy: { unwrap(): unknown } }).proxy.unwrap()).toThrow();
  });
});
