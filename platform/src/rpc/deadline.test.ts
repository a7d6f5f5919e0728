/**
 * Request deadlines: the client sends when it stops waiting (`meta.deadline`); a service does not start a request
 * that arrives after it (a paused process reading its socket late) and does not commit work that runs past it.
 */
import { randomUUID } from 'node:crypto';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../messaging/nats-connection.js';
import { ErrorCode, RequestOutcome, type RpcRequest } from '@invest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEADLINE_MARGIN_MS } from '../context/deadline.js';
import { type Db, Migration } from '../db/database.js';
import { createLogger } from '../logging/logger.js';
import { busSubject } from '../messaging/bus-prefix.js';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { RpcClient } from './rpc-client.js';
import { startRpcService } from './rpc-server.js';
import { ServiceError } from './service-error.js';

class WorkTable extends Migration {
  override up(): void {
    this.addSql('create table work (id text primary key)');
  }
}

let db: Db;
let started = 0;
/** Set while a `dl.slow` handler waits inside its transaction; calling it lets the handler go on. */
let waiting: (() => void) | undefined;

@Controller()
class DeadlineController {
  @MessagePattern('dl.meta')
  meta(@Payload() req: RpcRequest<unknown>) {
    return { deadline: req.meta.deadline };
  }

  @MessagePattern('dl.write')
  async write(@Payload() req: RpcRequest<{ id: string }>) {
    started++;
    await db.transaction((tx) => tx.query('insert into work (id) values ($1)', [req.data.id]));
    return { ok: true };
  }

  /** Starts in time, then waits (a lock, a paused process) until released, then writes. */
  async slowWrite(id: string) {
    await db.transaction(async (tx) => {
      await tx.query('insert into work (id) values ($1)', [id]);
      await new Promise<void>((r) => (waiting = r));
    });
  }

  /** Fails as a service whose own call to another service timed out. */
  @MessagePattern('dl.inner-timeout')
  innerTimeout(): never {
    throw ServiceError.unavailable('The screener service did not answer within 3000 ms.', RequestOutcome.Unknown);
  }

  @MessagePattern('dl.slow')
  async slow(@Payload() req: RpcRequest<{ id: string }>) {
    await this.slowWrite(req.data.id);
    return { ok: true };
  }
}

@Module({ controllers: [DeadlineController] })
class DeadlineModule {}

describe('request deadlines', () => {
  useTestDatabase('pl_deadline', [{ name: 'work', class: WorkTable }], (opened) => (db = opened));
  const busPrefix = `${uniqueName('dl')}.`;
  let app: INestMicroservice;
  let rpc: RpcClient;
  let nc: NatsConnection;
  beforeAll(async () => {
    app = await startRpcService(DeadlineModule, { name: 'dl', natsUrl: testNatsUrl(), logger: createLogger('dl', 'silent'), busPrefix });
    rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'dl-client', defaultTimeoutMs: 2000, busPrefix });
    nc = await connectNats(testNatsUrl(), 'dl-raw');
  });
  afterAll(async () => {
    await nc?.close();
    await Promise.resolve(rpc?.close());
    await app?.close();
  });
  const openTransactions = () => db.query("select 1 from pg_stat_activity where datname = current_database() and state = 'idle in transaction'");
  /** Waits until the `dl.slow` handler is inside its transaction, then lets it go on. */
  const release = async () => {
    await expect.poll(() => waiting !== undefined, { timeout: 5000 }).toBe(true);
    const go = waiting!;
    waiting = undefined;
    go();
  };
  const rows = async () => (await db.query<{ id: string }>('select id from work order by id')).map((r) => r.id);

  it('sends when the client stops waiting as meta.deadline', async () => {
    const before = Date.now();
    const reply = await rpc.request<{ deadline: number }>('dl.meta', {}, { timeoutMs: 1500 });
    expect(reply.deadline).toBeGreaterThanOrEqual(before + 1500);
    expect(reply.deadline).toBeLessThanOrEqual(Date.now() + 1500);
  });

  it('does not start a request that arrives after its deadline (as a paused process reads it late)', async () => {
    const send = (deadline: number) =>
      nc.request(
        busSubject(busPrefix, 'dl.write'),
        JSON.stringify({ pattern: busSubject(busPrefix, 'dl.write'), data: { meta: { correlationId: randomUUID(), deadline }, data: { id: `late-${deadline}` } }, id: randomUUID() }),
        { timeout: 5000 },
      );
    const late = (await send(Date.now() - 1000)).json<{ err?: { code: string; extra?: unknown } }>();
    expect(late.err).toMatchObject({ code: ErrorCode.Unavailable, extra: { outcome: 'not_done' } });
    // Inside the margin counts as late too: the commit and the reply would not make it back in time.
    const marginal = (await send(Date.now() + DEADLINE_MARGIN_MS / 2)).json<{ err?: unknown }>();
    expect(marginal.err).toMatchObject({ code: ErrorCode.Unavailable });
    expect(started).toBe(0);
    expect(await rows()).toEqual([]);
    // With time left it runs.
    expect((await send(Date.now() + 5000)).json()).toMatchObject({ response: { ok: true } });
    expect(started).toBe(1);
  });

  it('rolls back work that reaches its commit after the deadline; the client hears the outcome is unknown', async () => {
    const err = await rpc.request('dl.slow', { id: 'slow-1' }, { timeoutMs: 600 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.Unavailable, extra: { outcome: 'unknown' } });
    // The handler is still waiting inside its transaction; let it go on past its deadline, and wait until the transaction has ended.
    expect(await openTransactions()).toHaveLength(1);
    await release();
    await expect.poll(openTransactions, { timeout: 5000 }).toEqual([]);
    expect(await rows()).not.toContain('slow-1');
  });

  it("an answered error says nothing was done, even when the service's own inner call timed out", async () => {
    const err = await rpc.request('dl.inner-timeout', {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.Unavailable, extra: { outcome: 'not_done' } });
  });

  it('commits work that finishes in time', async () => {
    const pending = rpc.request('dl.slow', { id: 'slow-2' }, { timeoutMs: 5000 });
    await release();
    await expect(pending).resolves.toEqual({ ok: true });
    expect(await rows()).toContain('slow-2');
  });
});
