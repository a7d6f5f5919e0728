import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags, type SchemaObject } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { ReadinessProbe } from './readiness.probe.js';

const checksSchema: SchemaObject = {
  type: 'object',
  additionalProperties: { type: 'string', enum: ['ok', 'timeout', 'unreachable', 'unavailable', 'failing', 'error'] },
  example: { nats: 'ok', screener: 'ok' },
};

export function createHealthController(probe: ReadinessProbe) {
  @ApiTags('health')
  @Controller()
  class HealthController {
    @Get('health')
    @ApiOperation({ summary: 'Liveness: the process is up' })
    @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' } } } })
    health(): { status: 'ok' } {
      return { status: 'ok' };
    }

    @Get('ready')
    @ApiOperation({ summary: 'Readiness: NATS reachable and every READY_SERVICES service answering its health ping' })
    @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', example: 'ok' }, checks: checksSchema } } })
    @ApiServiceUnavailableResponse({
      description: 'Something is not ready; `failed` names it.',
      schema: {
        type: 'object',
        properties: {
          message: { type: 'string' },
          failed: { type: 'array', items: { type: 'string' } },
          checks: checksSchema,
          problems: { type: 'object', description: 'What a `failing` service named as wrong', additionalProperties: { type: 'array', items: { type: 'string' } } },
        },
      },
    })
    async ready(@Res({ passthrough: true }) reply: FastifyReply) {
      const report = await probe.check();
      if (report.ready) return { status: 'ok', checks: report.checks };
      reply.status(503);
      const named = report.failed.map((n) => (report.problems[n]?.length ? `${n} (${report.problems[n]!.join('; ')})` : n));
      return { message: `Not ready: ${named.join(', ')}.`, failed: report.failed, checks: report.checks, problems: report.problems };
    }
  }
  return HealthController;
}
