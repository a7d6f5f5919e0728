import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiParam, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import { ApiCommonErrors, openApiSchema } from '../docs/openapi.schemas.js';

/** `{"data": row}` */
export function dataSchema(row: SchemaObject): SchemaObject {
  return { type: 'object', required: ['data'], properties: { data: row } };
}

export const notFoundSchema: SchemaObject = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string', example: 'Portfolio not found.' } },
};

/** Authenticated portfolio/watchlist route: bearer auth, 401/422/503/500, and 404 for what is not the user's. */
export function ApiOwnedResource(opts: { validation?: boolean; notFound?: string } = {}) {
  return applyDecorators(
    ApiBearerAuth(),
    ApiCommonErrors({ auth: true, validation: opts.validation ?? false }),
    ...(opts.notFound
      ? [ApiResponse({ status: 404, description: `${opts.notFound} does not exist or belongs to another user (ids never leak).`, schema: notFoundSchema })]
      : []),
  );
}

export const ApiIdParam = (name: string, what: string) => ApiParam({ name, description: `${what} id.`, schema: { type: 'integer', minimum: 1 } });

export { openApiSchema };
