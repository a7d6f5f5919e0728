import type { JetStreamManager } from '@nats-io/jetstream';
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
