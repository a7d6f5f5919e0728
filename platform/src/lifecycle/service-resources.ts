import { type DynamicModule, type INestMicroservice, Module, type OnApplicationShutdown, type Type } from '@nestjs/common';
import type { EventContext } from '@invest/contracts';
import { type Db, type OpenDatabaseOptions, openDatabase } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import { type Bus, connectBus, ensureEventStream, isStreamNotFound, streamNameOf } from '../messaging/bus.js';
import { EventRelay, type EventRelayOptions } from '../messaging/event-relay.js';
import { RpcClient } from '../rpc/rpc-client.js';
import { startRpcService, type StartServiceOptions } from '../rpc/rpc-server.js';
import { ShutdownStack } from './shutdown.js';

/**
 * What a service's `create<Name>App` starts, in start order, each open/start paired with the step that
 * undoes it on a `ShutdownStack`: `stop()` undoes them last first, once, whichever comes first (close(), a
 * signal through Nest's shutdown hook, or a failed start); `close()` closes the Nest app first, then stops.
 */
export class ServiceResources {
  private readonly cleanup: ShutdownStack;
  private app: INestMicroservice | undefined;
  /** The event streams `connectBus` ensured, per bus: what the relay re-creates. */
  private readonly streams = new WeakMap<Bus, EventContext[]>();
  /** Started workers that report problems of their own (durable consumers). */
  private readonly workers: { healthProblems(): string[] }[] = [];

  constructor(logger: Logger) {
    this.cleanup = new ShutdownStack(logger);
  }

  /** Stops the resources (last first, once); Nest's shutdown calls it too (see `startApp`). */
  readonly stop = (): Promise<void> => this.cleanup.stop();

  /** Closes the Nest app if it was started, then the resources. */
  readonly close = async (): Promise<void> => {
    if (this.app) await this.app.close();
    await this.stop();
  };

  /** Registers what undoes the step just taken. */
  push(step: () => Promise<unknown> | unknown): void {
    this.cleanup.push(step);
  }

  /** Opens (creates, migrates) the service database; closed on stop. */
  async openDatabase(opts: OpenDatabaseOptions): Promise<Db> {
    const db = await openDatabase(opts);
    this.push(() => db.close());
    return db;
  }

  /** Connects to NATS, closed on stop, and ensures the JetStream streams of `streams` (with `replicas`), in order. */
  async connectBus(opts: Parameters<typeof connectBus>[0], streams: EventContext[] = []): Promise<Bus> {
    const bus = await connectBus(opts);
    this.push(() => bus.close());
    for (const ctx of streams) await ensureEventStream(bus, ctx);
    this.streams.set(bus, streams);
    return bus;
  }

  /** An RPC client to the other services, connected; closed on stop. */
  async connectRpc(opts: { natsUrl: string; name: string; defaultTimeoutMs: number; busPrefix?: string }): Promise<RpcClient> {
    const rpc = RpcClient.create(opts);
    await rpc.connect();
    this.push(() => rpc.close());
    return rpc;
  }

  /**
   * Starts the NATS handlers: the controllers, in a `serviceModule` whose shutdown stops these resources, so a
   * signal stops them too. `close()` closes the handlers before the resources.
   */
  async startApp(controllers: Type[], opts: StartServiceOptions): Promise<INestMicroservice> {
    this.app = await startRpcService(serviceModule(controllers, this.stop), opts);
    return this.app;
  }

  /**
   * Starts the event relay (a falsy `pollMs` keeps the relay's default); stopped on stop. A stream deleted on
   * the server is re-created, as `connectBus` made the streams of that bus.
   */
  startRelay(opts: Omit<EventRelayOptions, 'pollMs'> & { pollMs?: number | undefined }): Promise<EventRelay> {
    const { pollMs, ...rest } = opts;
    const streams = this.streams.get(opts.bus) ?? [];
    const ensureStreams = async () => {
      const recreated: string[] = [];
      for (const ctx of streams) {
        const name = streamNameOf(opts.bus, ctx);
        // Only a missing stream is created: an existing one keeps whatever configuration it has now.
        const missing = await opts.bus.jsm.streams.info(name).then(
          () => false,
          (err: unknown) => {
            if (isStreamNotFound(err)) return true;
            throw err;
          },
        );
        if (missing) recreated.push(await ensureEventStream(opts.bus, ctx));
      }
      return recreated;
    };
    return this.start(new EventRelay({ ensureStreams, ...rest, ...(pollMs ? { pollMs } : {}) }));
  }

  /** Starts a consumer, relay or other worker; stopped on stop (only once it has started). */
  async start<T extends { start(): Promise<unknown>; stop(): Promise<unknown> | unknown; healthProblems?(): string[] }>(worker: T): Promise<T> {
    await worker.start();
    this.push(() => worker.stop());
    if (worker.healthProblems) this.workers.push(worker as { healthProblems(): string[] });
    return worker;
  }

  /**
   * What the started workers find wrong with themselves (a durable consumer stuck); the service's health ping
   * reports it: `createHealthController('<name>', res.problems)`.
   */
  readonly problems = async (): Promise<string[]> => this.workers.flatMap((w) => w.healthProblems());

  /** Runs the start sequence; if it fails, closes whatever had started and rethrows. */
  async boot<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (err) {
      await this.close();
      throw err;
    }
  }
}

/**
 * The Nest module of a service. The app factory builds every object once; each controller class closes over
 * the ones it uses (`createDealsHandler(deals)`, like `createHealthController`), so Nest constructs it with no
 * arguments and injects nothing. `onShutdown` runs once the handlers have stopped: on app.close() and, with
 * shutdown hooks enabled, on SIGINT/SIGTERM.
 */
export function serviceModule(controllers: Type[], onShutdown?: () => Promise<unknown>): DynamicModule {
  // A module class's own lifecycle hook runs after those of its controllers and providers.
  @Module({})
  class ServiceModule implements OnApplicationShutdown {
    async onApplicationShutdown(): Promise<void> {
      await onShutdown?.();
    }
  }
  return { module: ServiceModule, controllers };
}
