/**
 * The NATS side of the chaos test: `CHAOS_NATS_NODES` nodes the test may kill and restart one at a time.
 * Until the cluster kit lands this is one private nats-server (a node loss is then a whole-bus outage).
 */
import { PrivateNats } from '@invest/platform/testing/index';

export interface ChaosNats {
  /** `NATS_URL` for the services: every node, comma-separated. */
  url: string;
  nodes: number;
  /** Replicas the streams are created with (`JETSTREAM_REPLICAS`). */
  replicas: number;
  kill(node: number): Promise<void>;
  restart(node: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startChaosNats(): Promise<ChaosNats> {
  const server = await PrivateNats.start();
  return {
    url: server.url,
    nodes: 1,
    replicas: 1,
    kill: () => server.kill(),
    restart: () => server.resume(),
    stop: () => server.stop(),
  };
}
