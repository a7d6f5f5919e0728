import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import { currentContext } from '../context/request-context.js';
import { redactUrl } from './redact-url.js';

export type { Logger } from 'pino';

/** Paths never written to logs. */
const REDACT = [
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.CardFirstSix',
  '*.CardLastFour',
  '*.Token',
  '*.apiKey',
];

/**
 * JSON logger for one service. Every line carries `service`, and `correlationId`/`userId`
 * of the request being handled (from the async request context).
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
    // A client may send its token in the query string; the gateway logs every URL.
    serializers: { url: redactUrl },
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const ctx = currentContext();
      return ctx ? { correlationId: ctx.correlationId, ...(ctx.userId ? { userId: ctx.userId } : {}) } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Routes NestJS's own log calls into the pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  // Nest's own info lines (every mapped route, each module initialised) are start-up chatter.
  log(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
  fatal(message: unknown, context?: string) {
    this.logger.fatal({ context }, String(message));
  }
}
