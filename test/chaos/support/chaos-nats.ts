/**
 * The NATS side of the chaos test: the private three-node JetStream cluster of the test kit (started from
 * deploy/nats/cluster.conf as it is), streams created with JETSTREAM_REPLICAS=3. The test kills and restarts
 * one node at a time.
 */
import { NatsCluster } from '@invest/platform/testing/index';

export interface ChaosNats {
  /** `NATS_URL` for the services: every node, comma-separated. */
  url: string;
  nodes: number;
  /** Replicas the streams are created with (`JETSTREAM_REPLICAS`). */
  replicas: number;
  /** Kills node `i` (0-based) with SIGKILL. */
  kill(node: number): Promise<void>;
  /** Starts node `i` again with its store; resolves once it is healthy (caught up). */
  restart(node: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startChaosNats(): Promise<ChaosNats> {
  const cluster = await NatsCluster.start({ size: 3 });
  return {
    url: cluster.url,
    nodes: cluster.nodes.length,
    replicas: 3,
    kill: async (i) => void (await cluster.kill(cluster.nodes[i]!.name)),
    restart: async (i) => void (await cluster.restart(cluster.nodes[i]!.name, 60_000)),
    stop: () => cluster.stop(),
  };
}
