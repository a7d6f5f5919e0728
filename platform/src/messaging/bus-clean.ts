import { jetstreamManager, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import { connectNats } from './nats-connection.js';
import { CHAT_STREAMS, EventStreams } from '@invest/contracts';
import { busName, normalizeBusPrefix } from './bus-prefix.js';

/**
 * Names the unprefixed (production) environment uses: its streams, and its durables `<service>__<purpose>`. A
 * prefix whose names would start like one of them (`portfolios`, `MARKET`) is refused: cleaning it would take
 * those too.
 */
const UNPREFIXED_NAMES = [...Object.values(EventStreams).map((s) => s.stream), CHAT_STREAMS.stream, ...['alerts', 'billing', 'chat', 'gateway', 'portfolios', 'screener'].map((s) => `${s}__`)];

/** The unprefixed name a prefix's names would also match (`MARKET` → `MARKET_EVENTS`), if any. */
function unprefixedClash(prefix: string): string | undefined {
  const head = busName(prefix, '');
  return UNPREFIXED_NAMES.find((name) => name.startsWith(head));
}

/** What `cleanBusPrefix` removed (or, with `dryRun`, would remove). */
export interface BusCleanReport {
  prefix: string;
  streams: { name: string; messages: number; consumers: string[] }[];
  /** Consumers of the prefix on streams that are not its own, as `<stream>/<consumer>`. */
  consumers: string[];
}

export interface BusCleanOptions {
  /** List what would go, remove nothing. */
  dryRun?: boolean;
}

/**
 * Removes every JetStream stream and durable consumer whose name starts with one `BUS_PREFIX` (`<prefix>_`),
 * with the consumers on those streams: what a stopped stack or test run leaves on the server. The server is
 * asked for what it has, not for a list of known names, so a stream added later (chat's answer streams) goes
 * too. Another prefix that starts with the same letters (`<prefix>x_`) is left alone; a nested prefix
 * (`<prefix>.sub`) has names of the same shape (`<prefix>_sub_…`) and goes with it. An empty prefix is
 * refused: it names the unprefixed (production) streams.
 */
export async function cleanBusPrefix(jsm: JetStreamManager, prefix: string, opts: BusCleanOptions = {}): Promise<BusCleanReport> {
  const normalized = normalizeBusPrefix(prefix);
  if (!normalized) throw new Error('cleanBusPrefix: an empty prefix names the unprefixed streams; refusing');
  const head = busName(normalized, '');
  const clash = unprefixedClash(normalized);
  if (clash) throw new Error(`cleanBusPrefix: prefix "${normalized}" would also match the unprefixed ${clash}…; refusing`);
  const report: BusCleanReport = { prefix: normalized, streams: [], consumers: [] };
  const streams: StreamInfo[] = [];
  for await (const info of jsm.streams.list()) streams.push(info);
  for (const info of streams.sort((a, b) => a.config.name.localeCompare(b.config.name))) {
    const name = info.config.name;
    const consumers = await consumerNames(jsm, name);
    if (name.startsWith(head)) {
      if (!opts.dryRun) await jsm.streams.delete(name).catch(ignoreGone);
      report.streams.push({ name, messages: info.state.messages, consumers: consumers.sort() });
      continue;
    }
    for (const consumer of consumers.filter((c) => c.startsWith(head)).sort()) {
      if (!opts.dryRun) await jsm.consumers.delete(name, consumer).catch(ignoreGone);
      report.consumers.push(`${name}/${consumer}`);
    }
  }
  return report;
}

async function consumerNames(jsm: JetStreamManager, stream: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const c of jsm.consumers.list(stream)) names.push(c.name);
  } catch (err) {
    ignoreGone(err);
  }
  return names;
}

/** Something else (a stopping test) may remove it first: gone is what was wanted. */
function ignoreGone(err: unknown): void {
  if (!/not found/i.test(String((err as Error).message))) throw err;
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
  const clash = unprefixedClash(prefix);
  if (clash) {
    deps.err(`prefix "${prefix}" would also match the unprefixed ${clash}… of the production environment; refusing`);
    return 64;
  }
  // A one-shot tool: the server list of NATS_URL, but no endless reconnecting.
  const nc = await connectNats(deps.natsUrl, 'bus-clean', { maxReconnectAttempts: 10 });
  try {
    const report = await cleanBusPrefix(await jetstreamManager(nc), prefix, { dryRun });
    if (!report.streams.length && !report.consumers.length) deps.out(`no streams or consumers of prefix "${prefix}" on ${deps.natsUrl}`);
    for (const s of report.streams) {
      deps.out(`${dryRun ? 'would remove' : 'removed'} stream ${s.name} (${s.messages} messages; consumers: ${s.consumers.join(', ') || 'none'})`);
    }
    for (const c of report.consumers) deps.out(`${dryRun ? 'would remove' : 'removed'} consumer ${c}`);
    return 0;
  } finally {
    await nc.close();
  }
}
