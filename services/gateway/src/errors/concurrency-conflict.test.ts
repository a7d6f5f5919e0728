/**
 * A version conflict that outlives `handleCommand`'s retries leaves the service as a ConcurrencyError; the
 * client sees 409 `conflict`, never 500. Checked end to end: service error path over real NATS, RpcClient,
 * then the gateway's HTTP mapping.
 */
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCode } from '@invest/contracts';
import { ConcurrencyError, createLogger, EventIdConflictError, RpcClient, ServiceError, startRpcService } from '@invest/platform';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHttpError } from './http-error.mapping.js';

@Controller()
class RacyController {
  @MessagePattern('racy.accounts.charge')
  charge(): never {
    throw new ConcurrencyError('account-1', 2, 3);
  }

  @MessagePattern('racy.accounts.top-up')
  topUp(): never {
    throw new EventIdConflictError(['6f1d6a52-3c4b-4e0e-9a57-2b8f2d1c7e90']);
  }

  @MessagePattern('racy.accounts.broken')
  broken(): never {
    throw new Error('boom');
  }
}

@Module({ controllers: [RacyController] })
class RacyModule {}

describe('a ConcurrencyError escaping a service', () => {
  const busPrefix = uniqueName('racy');
  let app: INestMicroservice | undefined;
  let rpc: RpcClient | undefined;
  beforeAll(async () => {
    app = await startRpcService(RacyModule, { name: 'racy', natsUrl: testNatsUrl(), logger: createLogger('racy', 'silent'), busPrefix });
    rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'racy-client', defaultTimeoutMs: 5000, busPrefix });
    await rpc.connect();
  });
  afterAll(async () => {
    await Promise.resolve(rpc?.close()).catch(() => undefined);
    await app?.close();
  });

  const call = (subject: string) => rpc!.request(subject, {}).then(() => undefined, (e: unknown) => e);

  it('answers 409 conflict', async () => {
    const err = await call('racy.accounts.charge');
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe(ErrorCode.Conflict);
    expect(toHttpError(err)).toEqual({ status: 409, body: { message: 'The resource was changed by another request. Reload it and try again.' } });
  });

  it('answers 409 for an event id reused in another stream', async () => {
    expect(toHttpError(await call('racy.accounts.top-up')).status).toBe(409);
  });

  it('still answers 500 for an unexpected error', async () => {
    expect(toHttpError(await call('racy.accounts.broken')).status).toBe(500);
  });
});
