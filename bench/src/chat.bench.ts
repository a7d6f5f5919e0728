/**
 * `npm run bench -- chat [--chunks 20] [--interval 10] [--rounds 20] [--concurrency 1,100,500]`
 *
 * Streamed chat answers: the local OpenAI-compatible server (in this process) streams `--chunks` content
 * chunks `--interval` ms apart. Measured side by side in the same run:
 * - direct: this process reads the model server's SSE itself (the floor);
 * - gateway: POST /api/ai-chat/{id}/messages through the gateway and the chat service (each its own process,
 *   with billing answering the entitlements: HTTP → NATS request → Postgres → model call → JetStream per
 *   chunk → ordered consumer → SSE).
 * Figures: time to the first content chunk (from sending the request), and per-chunk overhead (when the
 * client got the model's chunk i minus when the model server wrote it; same process, same clock; an event
 * carrying several chunks delivers each of them), at 1, 100 and 500 concurrent streams. Targets: the gateway
 * adds at most 10 ms to the first chunk at 1 stream (p50); at 100 streams at most 50 ms (p50) and 150 ms (p95),
 * and its per-chunk lag is at most 100 ms (p99) over the direct path's.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { busName, connectBus } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { type FakeOpenAi, startFakeOpenAi } from '@invest/chat/testing/fake-openai';
import { mintDevToken } from '@invest/gateway/auth/dev-token';
import { DEV_JWT_SECRET } from '@invest/gateway/config/gateway.config';
import { percentile as pct } from './support/percentile.js';
import { repoRoot, startNode, stop, waitForOk } from './support/processes.js';

const KEY = 'sk-bench';

function arg(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
}

/**
 * When each of the model's chunks reached the client: an event delivers every chunk its text completes (the
 * gateway may carry several chunks in one event).
 */
class ChunkArrivals {
  private text = '';
  private readonly ends: number[];
  readonly at: number[] = [];

  constructor(chunks: readonly string[]) {
    let end = 0;
    this.ends = chunks.map((c) => (end += c.length));
  }

  received(content: string, now: number): void {
    this.text += content;
    while (this.at.length < this.ends.length && this.ends[this.at.length]! <= this.text.length) this.at.push(now);
  }
}

interface StreamFigures {
  firstChunkMs: number;
  /** From sending the request until the model server received its request. */
  toModelMs: number;
  /** From sending the request until its response headers (via the gateway: the send is stored and the answer's stream open). */
  headersMs: number;
  /** Receive time minus the model server's write time, per chunk. */
  chunkLagMs: number[];
}

/** Reads an SSE body, calling `onData(payload)` per `data:` line as it arrives. */
async function readSse(res: Response, onData: (data: string, event: string | undefined) => boolean | void): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      let event: string | undefined;
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        if (line.startsWith('data: ') && onData(line.slice(6), event) === true) {
          await reader.cancel();
          return;
        }
      }
    }
  }
}

async function direct(model: FakeOpenAi, chunks: readonly string[]): Promise<StreamFigures> {
  const marker = randomUUID();
  const t0 = performance.now();
  const res = await fetch(`${model.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: `direct ${marker}` }], stream: true, stream_options: { include_usage: true } }),
  });
  const headersMs = performance.now() - t0;
  // Found by its marker: with concurrent streams the newest request may be another one.
  const req = model.requests.find((r) => r.body.messages.at(-1)?.content?.endsWith(marker))!;
  let first = 0;
  const arrivals = new ChunkArrivals(chunks);
  await readSse(res, (data) => {
    if (data === '[DONE]') return true;
    const content = (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content;
    if (content) {
      const now = performance.now();
      first ||= now - t0;
      arrivals.received(content, now);
    }
  });
  return { firstChunkMs: first, toModelMs: req.receivedAt - t0, headersMs, chunkLagMs: arrivals.at.map((t, i) => t - req.sentAt[i]!) };
}

/**
 * Creates a user's chat, then answers the stream of one message in it. The chats of a round are created before its
 * messages are sent, all at once: what is measured is the streams, not the chats' creation.
 */
async function viaGateway(base: string, model: FakeOpenAi, chunks: readonly string[]): Promise<() => Promise<StreamFigures>> {
  // A user per stream: the free daily limit (10 support answers) never gets in the way.
  const token = await mintDevToken(`bench-${randomUUID()}`, DEV_JWT_SECRET);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const chat = (await (await fetch(`${base}/api/ai-chat`, { method: 'POST', headers, body: JSON.stringify({ context_type: 'support' }) })).json()) as { data: { id: string } };
  return () => sendVia(base, model, chunks, headers, chat.data.id);
}

async function sendVia(base: string, model: FakeOpenAi, chunks: readonly string[], headers: Record<string, string>, chatId: string): Promise<StreamFigures> {
  const marker = randomUUID();
  const t0 = performance.now();
  const res = await fetch(`${base}/api/ai-chat/${chatId}/messages`, { method: 'POST', headers, body: JSON.stringify({ message: `gateway ${marker}` }) });
  const headersMs = performance.now() - t0;
  if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
  let first = 0;
  const arrivals = new ChunkArrivals(chunks);
  await readSse(res, (data, event) => {
    if (event === 'chunk') {
      const now = performance.now();
      first ||= now - t0;
      arrivals.received((JSON.parse(data) as { content: string }).content, now);
    }
    return event === 'done' || event === 'error';
  });
  const req = model.requests.find((r) => r.body.messages.at(-1)?.content?.endsWith(marker));
  if (!req) throw new Error('the model server never saw the request');
  if (arrivals.at.length !== chunks.length) throw new Error(`the gateway delivered ${arrivals.at.length} of ${chunks.length} chunks`);
  return { firstChunkMs: first, toModelMs: req.receivedAt - t0, headersMs, chunkLagMs: arrivals.at.map((t, i) => t - req.sentAt[i]!) };
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th, in clock ticks (100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

const ms = (n: number) => `${n.toFixed(1).padStart(6)} ms`;

/** `rounds` times: `concurrency` streams made ready (`prepare`), then started together. */
async function measure(
  concurrency: number,
  rounds: number,
  prepare: () => Promise<() => Promise<StreamFigures>>,
): Promise<{ first: number[]; toModel: number[]; headers: number[]; lag: number[]; failures: string[] }> {
  const first: number[] = [];
  const toModel: number[] = [];
  const headers: number[] = [];
  const lag: number[] = [];
  // A stream that failed (a send past its deadline) is counted and named, not measured: the run goes on.
  const failures: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const ready = await Promise.all(Array.from({ length: concurrency }, () => prepare()));
    const results = await Promise.allSettled(ready.map((start) => start()));
    for (const result of results) {
      if (result.status === 'rejected') {
        failures.push(result.reason instanceof Error ? result.reason.message : String(result.reason));
        continue;
      }
      const f = result.value;
      first.push(f.firstChunkMs);
      toModel.push(f.toModelMs);
      headers.push(f.headersMs);
      lag.push(...f.chunkLagMs);
    }
  }
  return { first, toModel, headers, lag, failures };
}

export async function run(args: string[]): Promise<void> {
  const chunks = Number(arg(args, 'chunks', '20'));
  const interval = Number(arg(args, 'interval', '10'));
  const rounds = Number(arg(args, 'rounds', '20'));
  const levels = arg(args, 'concurrency', '1,100,500').split(',').map(Number);
  const texts = Array.from({ length: chunks }, (_, i) => `c${i} `);
  const model = await startFakeOpenAi({ apiKey: KEY, defaultScript: { chunks: texts, delayMs: interval } });
  const db = await createTestDatabase('bench_chat');
  const billingDb = await createTestDatabase('bench_chat_billing');
  const prefix = `${uniqueName('bench')}.`;
  const port = String(4400 + Math.floor(Math.random() * 50));
  const common = { BUS_PREFIX: prefix, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' };
  // Billing answers the entitlements (the free plan) as in production.
  const billing = startNode(
    `${repoRoot}services/billing/dist/main.js`,
    { ...common, BILLING_DATABASE_URL: billingDb.url, CLOUDPAYMENTS_API_URL: 'http://127.0.0.1:9', BILLING_JOBS_ENABLED: 'false' },
    'billing',
  );
  const chat = startNode(`${repoRoot}services/chat/dist/main.js`, { ...common, CHAT_DATABASE_URL: db.url, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: KEY }, 'chat');
  const gateway = startNode(`${repoRoot}services/gateway/dist/main.js`, { ...common, PORT: port, READY_SERVICES: 'chat,billing', RPC_TIMEOUT_MS: '10000' }, 'gateway');
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${base}/ready`);
    const directly = () => Promise.resolve(() => direct(model, texts));
    await measure(1, 3, directly); // warm-up
    await measure(1, 3, () => viaGateway(base, model, texts));
    console.log(`${chunks} chunks ${interval} ms apart per answer; first chunk after ${interval} ms at the model server`);
    for (const c of levels) {
      const r = c === 1 ? rounds : Math.max(1, Math.round(rounds / 10));
      const cpuBefore = process.cpuUsage();
      const d = await measure(c, r, directly);
      const cpuDirect = process.cpuUsage(cpuBefore);
      const cpuBeforeGateway = { bench: process.cpuUsage(), gateway: cpuMs(gateway.pid), chat: cpuMs(chat.pid), billing: cpuMs(billing.pid) };
      const g = await measure(c, r, () => viaGateway(base, model, texts));
      const cpuGateway = process.cpuUsage(cpuBeforeGateway.bench);
      const added = { p50: pct(g.first, 50) - pct(d.first, 50), p95: pct(g.first, 95) - pct(d.first, 95), lag: pct(g.lag, 99) - pct(d.lag, 99) };
      console.log(`\n${c} concurrent stream${c > 1 ? 's' : ''} (${d.first.length} answers each way; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores):`);
      for (const [way, m] of [['direct', d], ['via gateway', g]] as const) {
        if (m.failures.length > 0) console.log(`  FAILED ${way}: ${m.failures.length} of ${m.first.length + m.failures.length} streams, e.g. ${m.failures[0]!.slice(0, 120)}`);
      }
      console.log(`  first chunk, direct      p50 ${ms(pct(d.first, 50))}  p95 ${ms(pct(d.first, 95))}`);
      console.log(`  first chunk, gateway     p50 ${ms(pct(g.first, 50))}  p95 ${ms(pct(g.first, 95))}`);
      console.log(`  gateway adds             p50 ${ms(added.p50)}  p95 ${ms(added.p95)}`);
      console.log(`  request → model server   p50 ${ms(pct(g.toModel, 50))} via gateway, ${ms(pct(d.toModel, 50))} direct`);
      console.log(`  response headers         p50 ${ms(pct(g.headers, 50))} via gateway, ${ms(pct(d.headers, 50))} direct`);
      console.log(`  per-chunk lag, direct    p50 ${ms(pct(d.lag, 50))}  p99 ${ms(pct(d.lag, 99))}`);
      console.log(`  per-chunk lag, gateway   p50 ${ms(pct(g.lag, 50))}  p99 ${ms(pct(g.lag, 99))}  (p99 over direct ${ms(added.lag)})`);
      // CPU is what a loaded machine runs short of: per answer, by process (the bench process is the client and the model
      // server; via the gateway, creating each answer's chat counts too).
      const perAnswer = (usedMs: number) => ms(usedMs / d.first.length);
      const used = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
      console.log(
        `  CPU per answer           direct: bench ${perAnswer(used(cpuDirect))}; via gateway: bench ${perAnswer(used(cpuGateway))}, gateway ${perAnswer(cpuMs(gateway.pid) - cpuBeforeGateway.gateway)}, chat ${perAnswer(cpuMs(chat.pid) - cpuBeforeGateway.chat)}, billing ${perAnswer(cpuMs(billing.pid) - cpuBeforeGateway.billing)}`,
      );
      if (c === 1) console.log(`  target: gateway adds ≤ 10 ms to the first chunk at 1 stream (p50) → ${added.p50 <= 10 ? 'met' : 'NOT met'}`);
      if (c === 100) {
        const met = added.p50 <= 50 && added.p95 <= 150 && added.lag <= 100 && g.failures.length === 0;
        console.log(`  target: adds ≤ 50 ms (p50) and ≤ 150 ms (p95) to the first chunk, chunk lag ≤ 100 ms over direct (p99) → ${met ? 'met' : 'NOT met'}`);
      }
    }
  } finally {
    await Promise.all([stop(gateway), stop(chat), stop(billing)]);
    await model.close();
    await db.drop();
    await billingDb.drop();
    const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bench-cleanup', prefix });
    for (const s of ['CHAT_STREAMS', 'BILLING_EVENTS']) await bus.jsm.streams.delete(busName(prefix, s)).catch(() => undefined);
    await bus.close();
  }
}
