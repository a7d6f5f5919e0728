import { Writable } from 'node:stream';
import { createLogger } from '@invest/platform';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { UNSUBSCRIBE_PATH_PREFIX } from '../delivery/email.controller.js';
import { installRequestContextHooks } from './request-context.hooks.js';

const lines: string[] = [];
const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
const fastify = Fastify();
installRequestContextHooks(fastify, createLogger('gateway', 'debug', sink));
fastify.all(`${UNSUBSCRIBE_PATH_PREFIX}:token`, async () => ({ ok: true }));
fastify.get('/api/email/confirm', async () => ({ ok: true }));
afterAll(() => fastify.close());

describe('the access log', () => {
  it('writes a request line without the unsubscribe token of the path or a token of the query', async () => {
    const token = 'unsubscribe-token-0123456789abcdef';
    expect((await fastify.inject({ method: 'POST', url: `${UNSUBSCRIBE_PATH_PREFIX}${token}`, payload: { 'List-Unsubscribe': 'One-Click' } })).statusCode).toBe(200);
    expect((await fastify.inject({ method: 'GET', url: `/api/email/confirm?token=${token}` })).statusCode).toBe(200);
    const requests = lines.map((l) => JSON.parse(l) as { msg: string; url: string }).filter((l) => l.msg === 'request');
    expect(requests.map((r) => r.url)).toEqual([`${UNSUBSCRIBE_PATH_PREFIX}[redacted]`, '/api/email/confirm?token=[redacted]']);
    expect(lines.join()).not.toContain(token);
  });
});
