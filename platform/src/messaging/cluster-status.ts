import type { NatsConnection } from '@nats-io/transport-node';

/** A replica of the meta group, a stream or a consumer as `/jsz` reports it. */
interface JszPeer {
  name: string;
  current: boolean;
  offline?: boolean;
  active?: number;
  lag?: number;
}
interface JszCluster {
  leader?: string;
  replicas?: JszPeer[];
}
interface JszConsumer {
  name: string;
  num_pending?: number;
  num_ack_pending?: number;
  cluster?: JszCluster;
}
interface JszStream {
  name: string;
  config?: { num_replicas?: number };
  state?: { messages?: number; consumer_count?: number };
  cluster?: JszCluster;
  consumer_detail?: JszConsumer[];
}
interface Jsz {
  meta_cluster?: { leader?: string; cluster_size?: number; replicas?: JszPeer[] };
  account_details?: { stream_detail?: JszStream[] }[];
}

interface NodeView {
  url: string;
  name: string;
  jsz: Jsz;
}

const describePeer = (r: JszPeer) => `${r.name}${r.offline ? ' offline' : r.current ? '' : ` behind${r.lag ? ` ${r.lag}` : ''}${r.active ? ` (last seen ${Math.round(r.active / 1e6)} ms ago)` : ''}`}`;

/**
 * The peers of a stream or consumer as its leader sees them (`*` marks the leader; followers not current
 * are "behind"), else as another holder sees them.
 */
function peersOf(views: { node: string; cluster?: JszCluster }[]): string {
  const byLeader = views.find((v) => v.cluster?.leader === v.node);
  if (byLeader) return [`${byLeader.node}*`, ...(byLeader.cluster?.replicas ?? []).map(describePeer)].join(', ');
  const any = views[0];
  return `(no leader${any?.cluster?.leader ? `; last known ${any.cluster.leader}` : ''}) held by ${views.map((v) => v.node).join(', ')}`;
}

/**
 * What the cluster's monitoring endpoints (`http_port`: `/varz`, `/jsz`) say: which nodes answer, the meta
 * group, and every stream and consumer with its replica count, leader and followers (as the leader sees
 * them). Asks every node: each reports only the streams it holds. For people: the nats CLI is not needed
 * (docs/runbook.md, "NATS cluster").
 */
export async function clusterStatus(monitorUrls: string[], fetchJson = defaultFetchJson): Promise<string[]> {
  const lines: string[] = [];
  const views: NodeView[] = [];
  for (const raw of monitorUrls) {
    const url = raw.replace(/\/$/, '');
    try {
      const varz = (await fetchJson(`${url}/varz`)) as { server_name?: string };
      const jsz = (await fetchJson(`${url}/jsz?accounts=true&streams=true&consumers=true&config=true`)) as Jsz;
      const name = varz.server_name ?? url;
      views.push({ url, name, jsz });
      lines.push(`node ${name} (${url}): up; meta leader ${jsz.meta_cluster?.leader || '(none)'}`);
    } catch (err) {
      lines.push(`node at ${url}: not answering (${String((err as Error).message ?? err)})`);
    }
  }
  if (!views.length) return lines;
  const metaViews = views.map((v) => ({ node: v.name, cluster: v.jsz.meta_cluster }));
  lines.push(`meta group: size ${views[0]!.jsz.meta_cluster?.cluster_size ?? '?'}; ${peersOf(metaViews)}`);

  const streams = new Map<string, { node: string; stream: JszStream }[]>();
  for (const v of views) {
    for (const account of v.jsz.account_details ?? []) {
      for (const stream of account.stream_detail ?? []) streams.set(stream.name, [...(streams.get(stream.name) ?? []), { node: v.name, stream }]);
    }
  }
  for (const [name, held] of [...streams].sort(([a], [b]) => a.localeCompare(b))) {
    const lead = held.find((h) => h.stream.cluster?.leader === h.node) ?? held[0]!;
    const wanted = lead.stream.config?.num_replicas ?? 1;
    lines.push(`stream ${name}: R${wanted}, ${lead.stream.state?.messages ?? 0} messages; ${peersOf(held.map((h) => ({ node: h.node, cluster: h.stream.cluster })))}`);
    const consumers = new Map<string, { node: string; cluster?: JszCluster; c: JszConsumer }[]>();
    for (const h of held) for (const c of h.stream.consumer_detail ?? []) consumers.set(c.name, [...(consumers.get(c.name) ?? []), { node: h.node, cluster: c.cluster, c }]);
    for (const [cname, cviews] of [...consumers].sort(([a], [b]) => a.localeCompare(b))) {
      const c = (cviews.find((v) => v.cluster?.leader === v.node) ?? cviews[0]!).c;
      lines.push(`  consumer ${cname}: ${c.num_pending ?? 0} pending, ${c.num_ack_pending ?? 0} unacked; ${peersOf(cviews)}`);
    }
  }
  return lines;
}

async function defaultFetchJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.json();
}

/** Answer of a JetStream API call made by subject (those nats.js has no method for). */
async function jsApi(nc: NatsConnection, subject: string, body: unknown): Promise<{ success?: boolean; error?: { description?: string } }> {
  const msg = await nc.request(subject, JSON.stringify(body), { timeout: 5_000 });
  return msg.json();
}

/**
 * Removes a lost server from a stream's peers (`$JS.API.STREAM.PEER.REMOVE`); the stream places a new replica
 * on another node to get back to its replica count. For a node that will not come back under its name.
 */
export async function removeStreamPeer(nc: NatsConnection, stream: string, server: string): Promise<void> {
  const r = await jsApi(nc, `$JS.API.STREAM.PEER.REMOVE.${stream}`, { peer: server });
  if (!r.success) throw new Error(r.error?.description ?? 'peer remove failed');
}

/** Makes a stream's leader step down, so another replica leads (`$JS.API.STREAM.LEADER.STEPDOWN`). */
export async function stepDownStreamLeader(nc: NatsConnection, stream: string): Promise<void> {
  const r = await jsApi(nc, `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, {});
  if (!r.success) throw new Error(r.error?.description ?? 'step-down failed');
}

/**
 * Makes a consumer's leader step down, so another replica leads and every follower is brought up to date
 * (`$JS.API.CONSUMER.LEADER.STEPDOWN`).
 */
export async function stepDownConsumerLeader(nc: NatsConnection, stream: string, consumer: string): Promise<void> {
  const r = await jsApi(nc, `$JS.API.CONSUMER.LEADER.STEPDOWN.${stream}.${consumer}`, {});
  if (!r.success) throw new Error(r.error?.description ?? 'step-down failed');
}
