import { applyDecorators } from '@nestjs/common';
import { ApiQuery, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import { decimalDocOf } from '@invest/contracts';
import { z } from 'zod';

/**
 * Exact decimals (contracts' decimalSchema / decimalOutputSchema) are JSON numbers over HTTP, with their scale
 * and range; zod alone would describe their NATS form (a union with a string, a transform).
 */
function documentDecimals(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; innerType?: object; defaultValue?: unknown } } })._zod.def;
  const doc = decimalDocOf(ctx.zodSchema as object);
  if (doc) {
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, doc);
  } else if (def.type === 'default' && def.innerType && decimalDocOf(def.innerType)) {
    // zod leaves a default out of input schemas; a client should know that a missing commission is 0.
    ctx.jsonSchema.default = Number(def.defaultValue);
  }
}

/** OpenAPI 3.0 schema of a zod schema (`input`: what a client sends; `output`: what it receives). */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): SchemaObject {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any', override: documentDecimals }) as Record<string, unknown>;
  delete json.$schema;
  return json as SchemaObject;
}

/** One `@ApiQuery` per property of a zod object schema (all optional: every one has a default or may be left out). */
export function ApiQueryFromSchema(schema: z.ZodType, descriptions: Record<string, string> = {}) {
  const json = openApiSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, SchemaObject>;
  return applyDecorators(
    ...Object.entries(properties).map(([name, prop]) =>
      ApiQuery({ name, required: false, schema: prop, ...(descriptions[name] ? { description: descriptions[name] } : {}) }),
    ),
  );
}

const messageSchema: SchemaObject = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
};

export const errorSchemas = {
  message: messageSchema,
  validation: {
    type: 'object',
    required: ['message', 'errors'],
    properties: {
      message: { type: 'string', example: 'The selected sort is invalid.' },
      errors: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string' } },
        example: { sort: ['The selected sort is invalid.'] },
      },
    },
  } satisfies SchemaObject,
} as const;

/** Laravel paging envelope around rows of `row`. */
export function pageSchema(row: SchemaObject): SchemaObject {
  const link = { type: 'string', nullable: true } as SchemaObject;
  return {
    type: 'object',
    required: ['data', 'meta', 'links'],
    properties: {
      data: { type: 'array', items: row },
      meta: {
        type: 'object',
        required: ['current_page', 'per_page', 'total', 'last_page', 'from', 'to'],
        properties: {
          current_page: { type: 'integer' },
          per_page: { type: 'integer' },
          total: { type: 'integer' },
          last_page: { type: 'integer' },
          from: { type: 'integer', nullable: true },
          to: { type: 'integer', nullable: true },
        },
      },
      links: {
        type: 'object',
        required: ['first', 'last', 'prev', 'next'],
        properties: { first: { type: 'string' }, last: { type: 'string' }, prev: link, next: link },
      },
    },
  };
}

/** `{"data": [row, ...]}` */
export function listSchema(row: SchemaObject): SchemaObject {
  return { type: 'object', required: ['data'], properties: { data: { type: 'array', items: row } } };
}

/** The error answers every route may give. */
export function ApiCommonErrors(opts: { auth?: boolean; validation?: boolean } = {}) {
  return applyDecorators(
    ...(opts.validation ? [ApiResponse({ status: 422, description: 'Invalid query or body; `errors` names each field.', schema: errorSchemas.validation })] : []),
    ...(opts.auth ? [ApiResponse({ status: 401, description: 'Missing, malformed, expired or wrongly signed bearer token.', schema: messageSchema })] : []),
    ApiResponse({
      status: 503,
      description:
        'A service did not answer in time or is down. `outcome`: `unknown` when a write may have been carried out (repeat it with the same `Idempotency-Key`), `not_done` when nothing was changed.',
      schema: {
        type: 'object',
        required: ['message', 'outcome'],
        properties: { message: { type: 'string' }, outcome: { type: 'string', enum: ['unknown', 'not_done'] } },
      },
    }),
    ApiResponse({ status: 500, description: 'Unexpected error (details are only logged).', schema: messageSchema }),
  );
}
