/**
 * The event streams (notification inbox with Last-Event-ID, chat answers) when a connection drops in the middle of
 * an event, on a 401, and with no network. The browser globals the client modules touch at import (window,
 * localStorage, document) are stubbed; fetch is scripted per test.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubBrowserGlobals } from '../testing/browser-globals';

const store = stubBrowserGlobals();

let streams: typeof import('./event-stream');
let session: typeof import('../session');
let errors: typeof import('./api-error');

beforeAll(async () => {
  streams = await import('./event-stream');
  session = await import('../session');
  errors = await import('./api-error');
});

beforeEach(() => session.signIn({ token: 'token-1', userId: 'u1', expiresAt: Date.now() + 3_600_000 }));

afterEach(() => {
  vi.unstubAllGlobals();
  stubBrowserGlobals(store);
});

/** A 200 event-stream answer that sends `chunks`, then either ends or fails (a dropped connection). */
function sseResponse(chunks: string[], end: 'close' | 'drop'): Response {
  const enc = new TextEncoder();
  const queue = [...chunks];
  // Chunk by chunk as the reader pulls (erroring a stream discards what is queued): the drop comes after the last one.
  const body = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        const next = queue.shift();
        if (next !== undefined) c.enqueue(enc.encode(next));
        else if (end === 'close') c.close();
        else c.error(new TypeError('network error'));
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const firing = (id: number) => JSON.stringify({ id, title: `firing ${id}`, body: 'b' });
const ids = (events: { data: string }[]) => events.map((e) => (JSON.parse(e.data) as { id: number }).id);

/**
 * Runs followEventStream against scripted answers; the Last-Event-ID each (re)connect sent and the events
 * delivered. After the scripted answers the loop is stopped.
 */
async function follow(answers: Response[]): Promise<{ lastIds: (string | undefined)[]; events: { id?: string; event: string; data: string }[] }> {
  const lastIds: (string | undefined)[] = [];
  const events: { id?: string; event: string; data: string }[] = [];
  const abort = new AbortController();
  vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
    lastIds.push((init.headers as Record<string, string>)['last-event-id']);
    const next = answers.shift();
    if (!next) {
      abort.abort();
      throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    }
    return next;
  });
  await streams.followEventStream('/api/notification-events/stream', (e) => events.push(e), abort.signal);
  return { lastIds, events };
}

describe('notification stream reconnect (Last-Event-ID)', () => {
  it('a firing whose connection dropped after its id line is asked for again, not skipped', async () => {
    // Firing 6 arrives whole; firing 7 is cut after its `id:` and `event:` lines (never dispatched).
    const first = sseResponse(['retry: 5\n: connected\n\n', `id: 6\nevent: notification\ndata: ${firing(6)}\n\n`, 'id: 7\nevent: notification\n'], 'drop');
    // The server replays every firing after the Last-Event-ID it is given.
    const second = sseResponse([`retry: 5\n: connected\n\nid: 7\nevent: notification\ndata: ${firing(7)}\n\n`], 'close');
    const { lastIds, events } = await follow([first, second]);
    // The reconnect says "I have 6": saying 7 makes the server skip firing 7, which the page never saw.
    expect(lastIds.slice(0, 2)).toEqual([undefined, '6']);
    expect(ids(events.filter((e) => e.event === 'notification'))).toEqual([6, 7]);
  });

  it('a connection dropped in the middle of a data line leaves no half event to glue onto the next connection', async () => {
    const first = sseResponse(['retry: 5\n\n', `id: 6\nevent: notification\ndata: ${firing(6)}\n\n`, `id: 7\nevent: notification\ndata: {"id":7,"ti`], 'drop');
    const second = sseResponse([`retry: 5\n: connected\n\nid: 7\nevent: notification\ndata: ${firing(7)}\n\n`], 'close');
    const { lastIds, events } = await follow([first, second]);
    expect(lastIds[1]).toBe('6');
    // Every delivered event is whole JSON (the page's handler skips anything else: a lost toast).
    expect(events.map((e) => e.data)).toEqual([firing(6), firing(7)]);
  });
});

describe('401 on a stream', () => {
  it('signs the user out like a 401 of any other call, and stops following', async () => {
    const unauthorized = new Response(JSON.stringify({ message: 'Unauthenticated.' }), { status: 401, headers: { 'content-type': 'application/json' } });
    const { lastIds } = await follow([unauthorized, sseResponse([], 'close')]);
    expect(session.getSession()).toBeNull();
    expect(lastIds).toHaveLength(1);
  });

  it('does not sign out a session that replaced the rejected one meanwhile (another tab signed in)', async () => {
    vi.stubGlobal('fetch', async () => {
      session.signIn({ token: 'token-2', userId: 'u2', expiresAt: Date.now() + 3_600_000 });
      return new Response('{}', { status: 401 });
    });
    const response = await streams.fetchEventStream('/api/notification-events/stream', { signal: new AbortController().signal });
    expect(response.status).toBe(401);
    expect(session.getSession()?.token).toBe('token-2');
  });
});

describe('no connection while a chat answer streams', () => {
  // What chat.screen does, readEventStream(await fetchEventStream(...)); it shows describeError of what it caught.
  const send = (onEvent: (e: { event: string }) => void = () => undefined): Promise<unknown> =>
    streams
      .fetchEventStream('/api/ai-chat/x/messages', { signal: new AbortController().signal, method: 'POST', body: { message: 'hi' } })
      .then((r) => streams.readEventStream(r, onEvent))
      .then(
        () => undefined,
        (err: unknown) => err,
      );

  it('no answer at all is "no connection", not a server error', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const caught = await send();
    expect(caught).toBeInstanceOf(errors.ApiError);
    expect(errors.describeError(caught, 'en')).toBe('No connection to the server. Check your network.');
  });

  it('a connection lost in the middle of the answer is "no connection" too', async () => {
    vi.stubGlobal('fetch', async () => sseResponse(['event: start\ndata: {}\n\n'], 'drop'));
    const events: string[] = [];
    const caught = await send((e) => events.push(e.event));
    expect(events).toEqual(['start']);
    expect(errors.describeError(caught, 'en')).toBe('No connection to the server. Check your network.');
  });

  it('an abort stays an abort (the screen ignores it)', async () => {
    vi.stubGlobal('fetch', async () => {
      throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    });
    expect(((await send()) as Error).name).toBe('AbortError');
  });
});
