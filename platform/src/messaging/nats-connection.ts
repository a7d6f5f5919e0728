import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';

/**
 * The servers of a `NATS_URL`: one URL, or several separated by commas (the nodes of a cluster).
 * Blanks around and between the commas are ignored.
 */
export function natsServers(natsUrl: string): string[] {
  return natsUrl
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Options of every NATS connection of the project (bus, RPC servers and clients, tools): all servers of
 * `NATS_URL`, and a client that never gives up on the cluster.
 *
 * - `maxReconnectAttempts: -1`: nats.js' default (10 attempts, 2 s apart) leaves a process deaf after an
 *   outage of ~20 s until it is restarted.
 * - `reconnectTimeWait: 1000`: the wait before a server *already tried* is tried again; a server of the
 *   list not tried yet is tried at once, so losing one node of a cluster costs one reconnect, not a second.
 * - `pingInterval` 10 s × `maxPingOut` 3: a node that vanishes without closing the TCP connection (a cut
 *   network, a frozen VM) is given up after ~30 s instead of nats.js' default 4 minutes.
 * - `noAsyncTraces`: nats.js otherwise builds two Error objects (stack traces) for every request and every
 *   JetStream publish, to point a later timeout at its caller: a tenth of the gateway's CPU per proxied
 *   request (the billing bench). Our callers name the subject in their own errors.
 * - No `waitOnFirstConnect`: the first connect already tries every server of the list once; when none
 *   answers it fails, so a service exits at start (its supervisor restarts it) and the gateway starts
 *   unready (503 until NATS is back) instead of hanging.
 *
 * Servers the cluster announces (`connect_urls`) are added to the list by nats.js, so a client given one
 * node still fails over to the others it has learned.
 */
export function natsConnectionOptions(natsUrl: string, name: string) {
  return {
    servers: natsServers(natsUrl),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    pingInterval: 10_000,
    maxPingOut: 3,
    noAsyncTraces: true,
  } satisfies ConnectionOptions;
}

/** Connects to NATS at `natsUrl` (one URL or a comma-separated list) with `natsConnectionOptions`. */
export function connectNats(natsUrl: string, name: string, extra: Partial<ConnectionOptions> = {}): Promise<NatsConnection> {
  return connect({ ...natsConnectionOptions(natsUrl, name), ...extra });
}
