/**
 * The HTTP edge under clients that misbehave, over raw sockets (node:net): requests Node's parser refuses,
 * slow clients (slowloris) against short configured timeouts, the connection cap, and what the docs route
 * serves. Every answer is Laravel-shaped and carries a request id. No service is needed: none of these
 * requests reaches the bus.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@invest/platform';
import { eventually, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_SECRET } from '../src/config/gateway.config.js';
import { createGatewayApp, type GatewayApp } from '../src/gateway.app.js';

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
const KEEP_ALIVE_TIMEOUT_MS = 300;
const MAX_CONNECTIONS = 4;

let gw: GatewayApp;
let port: number;
const gatewayLog: string[] = [];

beforeAll(async () => {
  gw = await createGatewayApp({
    natsUrl: testNatsUrl(),
    busPrefix: `${uniqueName('gwedge')}.`,
    auth: { jwtSecret: 'http-edge-secret-0123456789-0123456789' },
    readyServices: [],
    http: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS, maxConnections: MAX_CONNECTIONS },
    logger: createLogger('gateway', 'info', { write: (s: string) => void gatewayLog.push(s) }),
  });
  port = Number(new URL(await gw.listen(0, '127.0.0.1')).port);
});

afterAll(async () => {
  await gw?.close();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection. */
  closed: boolean;
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server writes on the socket until it closes it (or `waitMs` passes). */
function collect(socket: Socket, waitMs = 5000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      resolve({ text, closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => done(true));
  });
}

function parse({ text, closed }: { text: string; closed: boolean }): RawResponse {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), closed };
}

/** Sends raw bytes and reads the answer up to the close. */
async function raw(request: string | Buffer): Promise<RawResponse> {
  const socket = await open();
  const answer = collect(socket);
  socket.write(request);
  return parse(await answer);
}

const expectLaravel = (res: RawResponse, status: number, message: string) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(res.body)).toEqual({ message });
  expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
};

describe('requests the HTTP parser refuses', () => {
  it('a 100 KB query string -> 431 in the Laravel shape with a request id', async () => {
    const res = await raw(`GET /api/public/shares?search=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectLaravel(res, 431, 'The request line or headers are too large.');
  });

  it('a 20 KB header -> 431', async () => {
    const res = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expectLaravel(res, 431, 'The request line or headers are too large.');
  });

  it('a malformed request line -> 400', async () => {
    const res = await raw('GET /health HTTP/1.1 extra\r\nHost: x\r\n\r\n');
    expectLaravel(res, 400, 'The request is not valid HTTP.');
  });

  it('Content-Length together with Transfer-Encoding -> 400', async () => {
    const res = await raw('POST /api/portfolios HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
    expectLaravel(res, 400, 'The request is not valid HTTP.');
  });

  it('each is logged with its request id', async () => {
    const res = await raw('BAD\r\n\r\n');
    const id = res.headers['x-request-id'];
    const line = gatewayLog.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.correlationId === id);
    expect(line).toMatchObject({ msg: 'client error', status: 400 });
  });
});

describe("Node's own answers", () => {
  it('an Expect header other than 100-continue -> 417 in the Laravel shape with the request id', async () => {
    const res = await raw('GET /health HTTP/1.1\r\nHost: x\r\nExpect: something\r\nX-Request-Id: expect-check-01\r\n\r\n');
    expect(res.status).toBe(417);
    expect(JSON.parse(res.body)).toEqual({ message: 'Only the expectation 100-continue is supported.' });
    expect(res.headers['x-request-id']).toBe('expect-check-01');
  });
});

describe("the router's own refusals", () => {
  it('a path parameter over the router limit -> 414 in the Laravel shape with a request id', async () => {
    const res = await raw(`GET /api/portfolios/${'1'.repeat(200)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectLaravel(res, 414, 'The URL is too long.');
  });
});

describe('slow clients (slowloris)', () => {
  it('headers that never finish -> 408 after the headers timeout, connection closed', async () => {
    const socket = await open();
    const answer = collect(socket);
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X-A: b\r\n'), 50);
    const res = parse(await answer);
    clearInterval(drip);
    expect(res.closed).toBe(true);
    expectLaravel(res, 408, 'The request was not received in time.');
  });

  it('a body sent a byte at a time -> 408 after the request timeout, connection closed', async () => {
    const socket = await open();
    const answer = collect(socket);
    socket.write('POST /api/portfolios HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const drip = setInterval(() => socket.writable && socket.write(' '), 50);
    const res = parse(await answer);
    clearInterval(drip);
    expect(res.closed).toBe(true);
    expectLaravel(res, 408, 'The request was not received in time.');
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const socket = await open();
    const answer = collect(socket, 5000);
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const res = parse(await answer);
    expect(res.status).toBe(200);
    expect(res.closed).toBe(true);
  });

  it('connections beyond the cap are closed as they arrive; the ones under it are served', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => open()));
    try {
      // Keep the held connections busy (headers dripping) so none of them is counted out.
      const drip = setInterval(() => held.forEach((s) => s.writable && s.write('')), 50);
      await sleep(50);
      const extra = await open();
      const answer = collect(extra, 2000);
      extra.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      const res = await answer;
      clearInterval(drip);
      expect(res).toEqual({ text: '', closed: true });
    } finally {
      held.forEach((s) => s.destroy());
    }
    // Once the server has seen them close, a new connection is served again.
    await expect.poll(async () => (await raw('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status, { timeout: 3000 }).toBe(200);
  });
});

describe('the development JWT secret', () => {
  const warnings = async (host: string) => {
    const log: string[] = [];
    const other = await createGatewayApp({
      natsUrl: testNatsUrl(),
      busPrefix: `${uniqueName('gwdev')}.`,
      readyServices: [],
      logger: createLogger('gateway', 'info', { write: (s: string) => void log.push(s) }),
    });
    try {
      expect(other.config.auth.jwtSecret).toBe(DEV_JWT_SECRET);
      await other.listen(0, host);
    } finally {
      await other.close();
    }
    return log.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'warn' && /development JWT secret/.test(String(l.msg)));
  };

  it('is a warning when the gateway listens beyond loopback', async () => {
    expect(await warnings('0.0.0.0')).toHaveLength(1);
  });

  it('is quiet on loopback', async () => {
    expect(await warnings('127.0.0.1')).toEqual([]);
  });
});

describe('Swagger UI', () => {
  // In-process requests: the test's short keep-alive timeout and small connection cap are not what is tested here.
  const get = async (url: string) => {
    const res = await gw.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.body, requestId: res.headers['x-request-id'] };
  };

  it('serves the page and the files it loads', async () => {
    for (const path of ['/api/docs', '/api/docs/']) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      // Every script and stylesheet the page names is served.
      const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `http://x${path}`).pathname);
      expect(assets.length).toBeGreaterThanOrEqual(4);
      for (const asset of assets) {
        const res = await get(asset);
        expect(res.status, `${path} -> ${asset}`).toBe(200);
        expect(res.body.length, `${path} -> ${asset}`).toBeGreaterThan(0);
      }
    }
  });

  it("does not serve the package's other files", async () => {
    for (const path of [
      '/api/docs/package.json',
      '/api/docs/Package.json',
      '/api/docs/%70ackage.json',
      '/api/docs/README.md',
      '/api/docs/swagger-ui-bundle.js.map',
      '/api/docs/absolute-path.js',
      '/api/docs/docs/package.json',
      '/api/docs/docs/swagger-ui.css',
      // Its page names assets under /api/docs/docs/: not served either, so neither is it.
      '/api/docs/index.html',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body)).toEqual({ message: 'Not Found.' });
      expect(res.requestId).toBeTruthy();
    }
  });
});

describe('while the gateway closes', () => {
  it('a request arriving on an open connection gets a Laravel-shaped 503 with a request id', async () => {
    const other = await createGatewayApp({
      natsUrl: testNatsUrl(),
      busPrefix: `${uniqueName('gwclose')}.`,
      auth: { jwtSecret: 'http-edge-secret-0123456789-0123456789' },
      readyServices: [],
      logger: createLogger('gateway', 'silent'),
    });
    const otherPort = Number(new URL(await other.listen(0, '127.0.0.1')).port);
    const socket = await new Promise<Socket>((resolve) => {
      const s = connect(otherPort, '127.0.0.1', () => resolve(s));
    });
    const answer = collect(socket);
    const server = other.app.getHttpServer() as Server;
    const inFlight = once(server, 'request');
    // A request in flight (its body not yet complete) keeps the connection open through close(): the gateway has
    // its headers before it closes (an idle connection would be closed at once).
    socket.write('POST /api/portfolios HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
    await inFlight;
    const closed = other.close();
    // The HTTP server itself is closing (no longer listening) when the rest arrives.
    await eventually(async () => server.listening, (listening) => !listening, 'the server to stop listening');
    // The first request completes (401: no token); the pipelined second one arrives while closing.
    socket.write('}GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const { text } = await answer;
    await closed;
    const second = parse({ text: text.slice(text.indexOf('HTTP/1.1', 1)), closed: true });
    expect(text.startsWith('HTTP/1.1 401')).toBe(true);
    expect(second.status).toBe(503);
    expect(JSON.parse(second.body)).toEqual({ message: 'Service temporarily unavailable. Please try again shortly.' });
    expect(second.headers['x-request-id']).toBeTruthy();
  });
});
