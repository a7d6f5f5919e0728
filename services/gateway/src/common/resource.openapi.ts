import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiParam, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import { ApiCommonErrors } from '../docs/openapi.schemas.js';

/*
 * OpenAPI pieces every controller of a user's resources uses (portfolios, deals, watchlists, custom assets,
 * and the next services' routes), kept in one place so the documents stay alike.
 */

/** `{"data": row}` */
export function dataSchema(row: SchemaObject): SchemaObject {
  return { type: 'object', required: ['data'], properties: { data: row } };
}

export const notFoundSchema: SchemaObject = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string', example: 'Portfolio not found.' } },
};

/** Authenticated route on a user's resource: bearer auth, 401/422/503/500, and 404 for what is not the user's. */
export function ApiOwnedResource(opts: { validation?: boolean; notFound?: string } = {}) {
  return applyDecorators(
    ApiBearerAuth(),
    ApiCommonErrors({ auth: true, validation: opts.validation ?? false }),
    ...(opts.notFound
      ? [ApiResponse({ status: 404, description: `${opts.notFound} does not exist or belongs to another user (ids never leak).`, schema: notFoundSchema })]
      : []),
  );
}

/** A path id: a positive integer. */
export const ApiIdParam = (name: string, what: string) => ApiParam({ name, description: `${what} id.`, schema: { type: 'integer', minimum: 1 } });

