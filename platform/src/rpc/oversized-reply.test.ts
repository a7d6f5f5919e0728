/**
 * A reply larger than the NATS server's max_payload cannot be sent: the caller gets an internal error at once, not
 * a timeout that reads as the service being down (an adversarial test found a list of watchlists doing that).
 */
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCode, type RpcRequest } from '@invest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { RpcClient } from './rpc-client.js';
import { startRpcService } from './rpc-server.js';
import { ServiceError } from './service-error.js';

@Controller()
class SizedController {
  @MessagePattern('sized.get')
  get(@Payload() req: RpcRequest<{ bytes: number }>) {
    return { data: 'x'.repeat(req.data.bytes) };
  }
}

@Module({ controllers: [SizedController] })
class SizedModule {}

describe('a reply over max_payload', () => {
  const busPrefix = `${uniqueName('sized')}.`;
  const logged: unknown[] = [];
  let app: INestMicroservice;
  let rpc: RpcClient;
  beforeAll(async () => {
    const logger = createLogger('sized', 'silent');
    const error = logger.error.bind(logger);
    logger.error = ((obj: unknown, ...rest: unknown[]) => {
      logged.push(obj);
      return (error as (...a: unknown[]) => void)(obj, ...rest);
    }) as typeof logger.error;
    app = await startRpcService(SizedModule, { name: 'sized', natsUrl: testNatsUrl(), logger, busPrefix });
    rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'sized-client', defaultTimeoutMs: 10_000, busPrefix });
  });
  afterAll(async () => {
    await Promise.resolve(rpc?.close());
    await app?.close();
  });

  it('is answered as an internal error at once and logged with its size; a reply under it goes through', async () => {
    expect((await rpc.request<{ data: string }>('sized.get', { bytes: 500_000 })).data).toHaveLength(500_000);
    const started = Date.now();
    const err = await rpc.request('sized.get', { bytes: 2_000_000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: ErrorCode.Internal, message: 'The answer is too large to send.' });
    expect(logged).toContainEqual(expect.objectContaining({ subject: `${busPrefix}sized.get`, bytes: expect.any(Number) }));
  });
});
