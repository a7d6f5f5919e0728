/**
 * `npm run nats:cluster -- [start|status|peer-remove <stream> <server>|stepdown <stream>]`: a three-node
 * JetStream cluster on this machine and its day-to-day operation without the nats CLI (docs/runbook.md).
 *
 * - `start` (default): runs deploy/nats/cluster.conf three times on loopback, client ports
 *   `NATS_CLUSTER_PORT` (default 4222) +0/+1/+2, routes +2000, monitoring +4000, stores in
 *   `.runtime/nats-cluster/` (kept), until Ctrl-C. Prints the NATS_URL for the services.
 * - `status`: meta group, streams and consumers with their leaders and replicas, from the monitoring
 *   endpoints `NATS_MONITOR_URL` (comma-separated; default those of `start`).
 * - `peer-remove <stream> <server>`: drops a lost node from a stream's peers (a new replica is placed).
 * - `stepdown <stream>`: the stream's leader hands over to another replica.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NatsCluster } from '../testing/nats-cluster.js';
import { clusterStatus, removeStreamPeer, stepDownStreamLeader } from './cluster-status.js';
import { connectNats } from './nats-connection.js';

const [command = 'start', ...args] = process.argv.slice(2);
const base = Number(process.env.NATS_CLUSTER_PORT || 4222);
const clientPorts = [base, base + 1, base + 2];
const localUrl = clientPorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
const natsUrl = process.env.NATS_URL || localUrl;
const monitorUrls = (process.env.NATS_MONITOR_URL || clientPorts.map((p) => `http://127.0.0.1:${p + 4000}`).join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

async function withNats(fn: (nc: Awaited<ReturnType<typeof connectNats>>) => Promise<void>): Promise<void> {
  const nc = await connectNats(natsUrl, 'nats-cluster-command', { maxReconnectAttempts: 3 });
  try {
    await fn(nc);
  } finally {
    await nc.close();
  }
}

if (command === 'start') {
  const dataDir = join(fileURLToPath(new URL('../../../.runtime/nats-cluster', import.meta.url)));
  const cluster = await NatsCluster.start({
    clientPorts,
    clusterPorts: clientPorts.map((p) => p + 2000),
    httpPorts: clientPorts.map((p) => p + 4000),
    dataDir,
  }).catch((err: unknown) => {
    console.error(`the cluster did not start: ${String((err as Error).message ?? err)} (NATS_CLUSTER_PORT picks other ports)`);
    process.exit(1);
  });
  console.log(`three-node JetStream cluster up (meta leader ${await cluster.metaLeader()}); stores and logs in ${dataDir}`);
  console.log(`run the services with:  NATS_URL=${cluster.url} JETSTREAM_REPLICAS=3 npm start`);
  console.log('status:                npm run nats:cluster -- status        (Ctrl-C stops the cluster)');
  const stop = () => void cluster.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else if (command === 'status') {
  for (const line of await clusterStatus(monitorUrls)) console.log(line);
} else if (command === 'peer-remove' && args.length === 2) {
  await withNats((nc) => removeStreamPeer(nc, args[0]!, args[1]!));
  console.log(`removed ${args[1]} from the peers of ${args[0]}; a new replica is being placed`);
} else if (command === 'stepdown' && args.length === 1) {
  await withNats((nc) => stepDownStreamLeader(nc, args[0]!));
  console.log(`the leader of ${args[0]} stepped down`);
} else {
  console.error('usage: npm run nats:cluster -- [start | status | peer-remove <stream> <server> | stepdown <stream>]');
  process.exitCode = 64;
}
