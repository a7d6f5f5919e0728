/**
 * `npm run bus:clean -- <prefix> [--dry-run]`: removes the JetStream streams and durable consumers of one
 * `BUS_PREFIX` from the NATS server at `NATS_URL` (default nats://127.0.0.1:4222).
 */
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { cleanBusPrefix } from './bus-clean.js';
import { normalizeBusPrefix } from './bus-prefix.js';

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const positional = args.filter((a) => !a.startsWith('--'));
const prefix = normalizeBusPrefix(positional[0]);
if (positional.length !== 1 || !prefix) {
  process.stderr.write('usage: npm run bus:clean -- <prefix> [--dry-run]   (an empty prefix is refused: it names the unprefixed streams)\n');
  process.exit(64);
}
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const nc = await connect({ servers: natsUrl, name: 'bus-clean' });
try {
  const report = await cleanBusPrefix(await jetstreamManager(nc), prefix, { dryRun });
  const verb = dryRun ? 'would remove' : 'removed';
  if (!report.streams.length) process.stdout.write(`no streams of prefix "${prefix}" on ${natsUrl}\n`);
  for (const s of report.streams) {
    process.stdout.write(`${verb} stream ${s.name} (${s.messages} messages; consumers: ${s.consumers.join(', ') || 'none'})\n`);
  }
} finally {
  await nc.close();
}
