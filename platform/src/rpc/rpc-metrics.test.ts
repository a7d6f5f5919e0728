/**
 * RPC metrics on the real NATS: each handled request is counted and timed by its subject (without the bus
 * prefix) and outcome, `ok` or the error code answered.
 */
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logging/logger.js';
import { metricValue } from '../testing/metric-value.js';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { RpcClient } from './rpc-client.js';
import { startRpcService } from './rpc-server.js';
import { ServiceError } from './service-error.js';

@Controller()
class CountedController {
  @MessagePattern('rm.found')
  found() {
    return { ok: true };
  }

  @MessagePattern('rm.missing')
  missing(): never {
    throw ServiceError.notFound('No such thing.');
  }

  @MessagePattern('rm.broken')
  broken(): never {
    throw new Error('a bug');
  }
}

@Module({ controllers: [CountedController] })
class CountedModule {}

describe('rpc metrics', () => {
  const busPrefix = `${uniqueName('rm')}.`;
  let app: INestMicroservice;
  let rpc: RpcClient;
  beforeAll(async () => {
    app = await startRpcService(CountedModule, { name: 'rm', natsUrl: testNatsUrl(), logger: createLogger('rm', 'silent'), busPrefix });
    rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'rm-client', defaultTimeoutMs: 2000, busPrefix });
  });
  afterAll(async () => {
    await Promise.resolve(rpc?.close());
    await app?.close();
  });

  it('counts requests by subject and outcome, and times them', async () => {
    await rpc.request('rm.found', {});
    await rpc.request('rm.found', {});
    await expect(rpc.request('rm.missing', {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(rpc.request('rm.broken', {})).rejects.toMatchObject({ code: 'internal' });

    await expect.poll(() => metricValue('invest_rpc_requests_total', { subject: 'rm.found', outcome: 'ok' })).toBe(2);
    await expect.poll(() => metricValue('invest_rpc_requests_total', { subject: 'rm.missing', outcome: 'not_found' })).toBe(1);
    await expect.poll(() => metricValue('invest_rpc_requests_total', { subject: 'rm.broken', outcome: 'internal' })).toBe(1);
    expect(await metricValue('invest_rpc_request_duration_seconds', { subject: 'rm.found', outcome: 'ok' }, '_count')).toBe(2);
  });
});
