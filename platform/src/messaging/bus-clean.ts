import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connectNats } from './nats-connection.js';
import { EventStreams } from '@invest/contracts';
import { busName, normalizeBusPrefix } from './bus-prefix.js';

/** What `cleanBusPrefix` removed (or, with `dryRun`, would remove). */
export interface BusCleanReport {
  prefix: string;
  streams: { name: string; messages: number; consumers: string[] }[];
}

export interface BusCleanOptions {
  /** Stream base names to look for (default: every context's stream in contracts' `EventStreams`). */
  streams?: readonly string[];
  /** List what would go, remove nothing. */
  dryRun?: boolean;
}

/**
 * Removes the JetStream streams of one `BUS_PREFIX` (`<prefix>_MARKET_EVENTS`, ...) and with them every
 * durable consumer on them: what a stopped stack or test run leaves on the server. Only exact names are
 * touched, so another prefix (even one that starts with the same letters) is left alone. An empty prefix
 * is refused: it names the unprefixed (production) streams.
 */
export async function cleanBusPrefix(jsm: JetStreamManager, prefix: string, opts: BusCleanOptions = {}): Promise<BusCleanReport> {
  const normalized = normalizeBusPrefix(prefix);
  if (!normalized) throw new Error('cleanBusPrefix: an empty prefix names the unprefixed streams; refusing');
  const report: BusCleanReport = { prefix: normalized, streams: [] };
  for (const base of opts.streams ?? Object.values(EventStreams).map((s) => s.stream)) {
    const name = busName(normalized, base);
    const info = await jsm.streams.info(name).catch((err: unknown) => {
      if (/not found/i.test(String((err as Error).message))) return undefined;
      throw err;
    });
    if (!info) continue;
    const consumers: string[] = [];
    for await (const c of jsm.consumers.list(name)) consumers.push(c.name);
    if (!opts.dryRun) await jsm.streams.delete(name);
    report.streams.push({ name, messages: info.state.messages, consumers: consumers.sort() });
  }
  return report;
}

/**
 * `npm run bus:clean -- <prefix> [--dry-run]` without the process around it: writes what it removed to
 * `out` and returns the exit status (64 for a usage error, such as a missing or empty prefix).
 */
export async function busCleanCommand(
  args: readonly string[],
  deps: { natsUrl: string; out: (line: string) => void; err: (line: string) => void },
): Promise<number> {
  const dryRun = args.includes('--dry-run');
  const unknown = args.filter((a) => a.startsWith('--') && a !== '--dry-run');
  const positional = args.filter((a) => !a.startsWith('--'));
  const prefix = normalizeBusPrefix(positional[0]);
  if (unknown.length || positional.length !== 1 || !prefix) {
    deps.err('usage: npm run bus:clean -- <prefix> [--dry-run]   (an empty prefix is refused: it names the unprefixed streams)');
    return 64;
  }
  // A one-shot tool: the server list of NATS_URL, but no endless reconnecting.
  const nc = await connectNats(deps.natsUrl, 'bus-clean', { maxReconnectAttempts: 10 });
  try {
    const report = await cleanBusPrefix(await jetstreamManager(nc), prefix, { dryRun });
    if (!report.streams.length) deps.out(`no streams of prefix "${prefix}" on ${deps.natsUrl}`);
    for (const s of report.streams) {
      deps.out(`${dryRun ? 'would remove' : 'removed'} stream ${s.name} (${s.messages} messages; consumers: ${s.consumers.join(', ') || 'none'})`);
    }
    return 0;
  } finally {
    await nc.close();
  }
}
