/**
 * `npm run bus:clean -- <prefix> [--dry-run]`: removes the JetStream streams and durable consumers of one
 * `BUS_PREFIX` from the NATS server at `NATS_URL` (default nats://127.0.0.1:4222).
 */
import { busCleanCommand } from './bus-clean.js';

process.exitCode = await busCleanCommand(process.argv.slice(2), {
  natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
