import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** How the fake answers one request. */
export interface FakeScript {
  /** Text fragments, one chunk each (after the role chunk). */
  chunks?: string[];
  /** Pause before each content chunk. */
  delayMs?: number;
  /**
   * The final usage chunk, sent only when the request asked for it (`stream_options.include_usage`, as the API does):
   * default true (counted from the request: four prompt characters a token, a completion token a chunk), given token
   * counts, or `false` to play a server that sends none.
   */
  usage?: boolean | { prompt_tokens: number; completion_tokens: number };
  /** Answer this HTTP status with an OpenAI error body instead of a stream. */
  status?: number;
  /** Hold the last content chunk until `release()` is called. */
  holdLast?: boolean;
  /** After this many content chunks, send an error object as a data event (HTTP 200 already sent) and end. */
  errorAfter?: number;
  /**
   * After the chunks, call these tools (`delta.tool_calls` fragments: id and name first, the arguments in two
   * pieces) and finish with `finish_reason: "tool_calls"`. Arguments given as an object are sent as its JSON.
   */
  toolCalls?: { id?: string; name: string; arguments: string | Record<string, unknown> }[];
}

/** A script, or one written from the request (e.g. text citing the tool result the model was sent). */
export type FakeScriptOrReply = FakeScript | ((request: FakeRequest) => FakeScript);

/** One message as the fake received it. */
export interface FakeMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** One request as the fake saw it. */
export interface FakeRequest {
  body: {
    model: string;
    messages: FakeMessage[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  };
  authorization: string | undefined;
  /** Content chunks written so far. */
  sent: number;
  /** `performance.now()` when the request arrived. */
  receivedAt: number;
  /** `performance.now()` when each content chunk was written (benchmarks measure relay overhead from it). */
  sentAt: number[];
  /** The client went away before the stream ended (an abort reached the server). */
  aborted: boolean;
  finished: boolean;
  /** Resolves when the request is over (finished or aborted). */
  ended: Promise<void>;
  /** Lets this request's held last chunk go (now, or when it gets there). */
  release(): void;
}

export interface FakeOpenAi {
  /** Base URL for the SDK (`.../v1`). */
  url: string;
  requests: FakeRequest[];
  /** Scripts used in order by the next requests; when empty, `defaultScript` answers. */
  queue: FakeScriptOrReply[];
  defaultScript: FakeScript;
  /** Lets every held last chunk go. */
  release(): void;
  /** Resolves when the n-th request (1-based) has arrived. */
  waitForRequest(n: number): Promise<FakeRequest>;
  close(): Promise<void>;
}

const CREATED = 1694268190;

/**
 * A local OpenAI-compatible chat-completions server speaking the real streaming wire format
 * (`shared/reference/openai-streaming.md`): `data: <chunk>` events, a role chunk, content chunks, a
 * finish chunk, the usage chunk with `choices: []`, then `data: [DONE]`. Pacing is controllable and
 * client aborts are recorded, so tests can prove a stop reaches the model server.
 */
export async function startFakeOpenAi(opts: { apiKey?: string; defaultScript?: FakeScript } = {}): Promise<FakeOpenAi> {
  const requests: FakeRequest[] = [];
  const waiters: { n: number; resolve: (r: FakeRequest) => void }[] = [];
  const fake: FakeOpenAi = {
    url: '',
    requests,
    queue: [],
    defaultScript: opts.defaultScript ?? { chunks: ['Hello', ' from', ' the', ' model.'], delayMs: 5 },
    release() {
      requests.forEach((r) => r.release());
    },
    waitForRequest(n) {
      if (requests.length >= n) return Promise.resolve(requests[n - 1]!);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      fake.release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    const raw: Buffer[] = [];
    for await (const c of req) raw.push(c as Buffer);
    let endedResolve!: () => void;
    let released = false;
    let onRelease: (() => void) | undefined;
    const record: FakeRequest = {
      body: JSON.parse(Buffer.concat(raw).toString('utf8')) as FakeRequest['body'],
      authorization: req.headers.authorization,
      sent: 0,
      receivedAt: performance.now(),
      sentAt: [],
      aborted: false,
      finished: false,
      ended: new Promise((r) => (endedResolve = r)),
      release() {
        released = true;
        onRelease?.();
      },
    };
    requests.push(record);
    for (const w of waiters.filter((x) => x.n <= requests.length)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(requests[w.n - 1]!);
    }
    res.on('close', () => {
      if (!record.finished) record.aborted = true;
      endedResolve();
    });
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided: ***.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
      record.finished = true;
      return;
    }
    const next = fake.queue.shift() ?? fake.defaultScript;
    const script = typeof next === 'function' ? next(record) : next;
    if (script.status) {
      res.writeHead(script.status, { 'content-type': 'application/json', 'x-request-id': 'req_fake' });
      res.end(JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } }));
      record.finished = true;
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = `chatcmpl-${requests.length}`;
    const model = record.body.model;
    const write = (payload: unknown) => {
      if (!res.destroyed) res.write(`data: ${JSON.stringify(payload)}\n\n`);
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    write(chunk({ role: 'assistant', content: '' }));
    const chunks = script.chunks ?? [];
    for (let i = 0; i < chunks.length; i++) {
      if (res.destroyed) return;
      if (script.holdLast && i === chunks.length - 1 && !released) await new Promise<void>((r) => (onRelease = r));
      if (script.delayMs) await sleep(script.delayMs);
      if (res.destroyed) return;
      if (script.errorAfter === i) {
        write({ error: { message: 'The model is overloaded.', type: 'server_error', param: null, code: null } });
        record.finished = true;
        res.end();
        return;
      }
      write(chunk({ content: chunks[i] }));
      record.sentAt.push(performance.now());
      record.sent++;
    }
    const calls = script.toolCalls ?? [];
    calls.forEach((c, index) => {
      const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
      const half = Math.ceil(args.length / 2);
      write(chunk({ tool_calls: [{ index, id: c.id ?? `call_${requests.length}_${index}`, type: 'function', function: { name: c.name, arguments: '' } }] }));
      write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    write(chunk({}, calls.length ? 'tool_calls' : 'stop'));
    if (script.usage !== false && record.body.stream_options?.include_usage === true) {
      const given = typeof script.usage === 'object' ? script.usage : undefined;
      const completion = given?.completion_tokens ?? chunks.length + calls.length;
      const prompt = given?.prompt_tokens ?? record.body.messages.reduce((n, m) => n + Math.ceil((m.content ?? '').length / 4), 0);
      // The usage chunk of the reference: `choices: []`; the other chunks carry no `usage` key.
      write({ id, object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: 'fp_fake', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
    }
    res.write('data: [DONE]\n\n');
    record.finished = true;
    res.end();
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
