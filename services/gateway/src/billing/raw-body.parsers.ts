import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { exactJsonBodyParser, formBodyFields } from '../http/exact-json.js';
import { RAW_BODY_PATH_PREFIX } from './provider-webhooks.controller.js';

const isRawBodyRoute = (req: Pick<FastifyRequest, 'url'>) => (req.url ?? '').startsWith(RAW_BODY_PATH_PREFIX);

/**
 * JSON and form body parsers that leave provider notification bodies as the raw bytes (their HMAC is over
 * the bytes as sent, and a forged body must reach no parser before billing checks it); every other route
 * parses JSON with exactJsonBodyParser (number literals a double would change stay exact). Must run before
 * `app.init()`.
 */
export function installRawBodyParsers(app: NestFastifyApplication, bodyLimit: number): void {
  app.useBodyParser('application/json', { bodyLimit }, (req, body, done) => {
    if (isRawBodyRoute(req)) return done(null, body);
    exactJsonBodyParser(req, body, done);
  });
  app.useBodyParser('application/x-www-form-urlencoded', { bodyLimit }, (req, body, done) => {
    if (isRawBodyRoute(req)) return done(null, body);
    const fields = formBodyFields(body);
    if (fields instanceof Error) return done(fields);
    done(null, fields);
  });
}
