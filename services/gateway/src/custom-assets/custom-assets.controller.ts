import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  type CustomAssetReply,
  CustomAssetSubjects,
  type ListCustomAssetsReply,
  createCustomAssetRequestSchema,
  customAssetSchema,
  updateCustomAssetBodySchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import { z } from 'zod';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiIdParam, ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { ApiCommonErrors, listSchema, openApiSchema } from '../docs/openapi.schemas.js';
import { withDecimalNumbers } from '../http/exact-json.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { parseBody } from '../validation/request-input.js';

const asset = openApiSchema(customAssetSchema);
/** Replies whose prices are written as JSON numbers with exactly the digits the owner gave. */
const assetReply = z.object({ data: customAssetSchema });
const assetList = z.object({ data: z.array(customAssetSchema) });

/**
 * Custom assets of the signed-in user: things without a market price (a flat, a private stake) whose price the
 * owner sets. Bodies are validated here with the contract schemas (422 before any NATS traffic); the screener
 * validates again and scopes everything to the user (another user's asset is a 404). A new price is a rate
 * change like any other: the screener publishes RatesUpdated.
 */
export function createCustomAssetsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('custom-assets')
  @ApiBearerAuth()
  @UseGuards(auth)
  @Controller('api/custom-assets')
  class CustomAssetsController {
    @Get()
    @ApiOperation({ summary: "The user's custom assets", description: 'Oldest first.' })
    @ApiOkResponse({ schema: listSchema(asset) })
    @ApiCommonErrors({ auth: true })
    async list(): Promise<ListCustomAssetsReply> {
      return withDecimalNumbers(assetList, await rpc.request<ListCustomAssetsReply>(CustomAssetSubjects.list, {}));
    }

    @Post()
    @ApiOperation({ summary: 'Create a custom asset with its price', description: 'The ticker defaults to the name, upper-cased.' })
    @ApiBody({ schema: openApiSchema(createCustomAssetRequestSchema, 'input') })
    @ApiCreatedResponse({ schema: dataSchema(asset) })
    @ApiCommonErrors({ auth: true, validation: true })
    @ApiIdempotencyKey()
    async create(@Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<CustomAssetReply> {
      const opts = idempotencyOptions(key);
      const parsed = parseBody(createCustomAssetRequestSchema, body);
      return withDecimalNumbers(assetReply, await rpc.request<CustomAssetReply>(CustomAssetSubjects.create, parsed, opts));
    }

    @Patch(':id')
    @ApiOperation({ summary: 'Change a custom asset (name, ticker, currency, description) or set its price' })
    @ApiIdParam('id', 'Custom asset')
    @ApiBody({ schema: openApiSchema(updateCustomAssetBodySchema, 'input') })
    @ApiOkResponse({ schema: dataSchema(asset) })
    @ApiOwnedResource({ validation: true, notFound: 'The custom asset' })
    async update(@Param('id') id: string, @Body() body: unknown): Promise<CustomAssetReply> {
      const changes = parseBody(updateCustomAssetBodySchema, body);
      return withDecimalNumbers(assetReply, await rpc.request<CustomAssetReply>(CustomAssetSubjects.update, { ...changes, id }));
    }

    @Delete(':id')
    @HttpCode(204)
    @ApiOperation({
      summary: 'Delete a custom asset',
      description:
        'Refused (409) while the asset is held in a portfolio (an open position) or is an item of a watchlist: the answer names each (`used_in`). Deals of positions already closed stay, with the last name and price.',
    })
    @ApiIdParam('id', 'Custom asset')
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiOwnedResource({ notFound: 'The custom asset' })
    @ApiResponse({
      status: 409,
      description: 'The asset is in use.',
      schema: {
        type: 'object',
        required: ['message', 'used_in'],
        properties: {
          message: { type: 'string', example: 'The custom asset is in use (portfolio 12, watchlist 7); remove it from there first.' },
          used_in: {
            type: 'array',
            items: { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string', enum: ['portfolio', 'watchlist'] }, id: { type: 'integer' } } },
          },
        },
      },
    })
    async delete(@Param('id') id: string): Promise<void> {
      await rpc.request(CustomAssetSubjects.delete, { id });
    }
  }
  return CustomAssetsController;
}
