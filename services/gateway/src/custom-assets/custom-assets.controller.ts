import { Body, Controller, Get, Headers, Inject, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CustomAssetReply,
  CustomAssetSubjects,
  type ListCustomAssetsReply,
  createCustomAssetRequestSchema,
  customAssetSchema,
  updateCustomAssetBodySchema,
} from '@invest/contracts';
import { parseOrThrow, type RpcClient } from '@invest/platform';
import { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { bodyObject } from '../common/request-body.js';
import { ApiIdParam, ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { ApiCommonErrors, listSchema, openApiSchema } from '../docs/openapi.schemas.js';
import { RPC_CLIENT } from '../gateway.tokens.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';

const asset = openApiSchema(customAssetSchema);

/**
 * Custom assets of the signed-in user: things without a market price (a flat, a private stake) whose price the
 * owner sets. Bodies are validated here with the contract schemas (422 before any NATS traffic); the screener
 * validates again and scopes everything to the user (another user's asset is a 404). A new price is a rate
 * change like any other: the screener publishes RatesUpdated.
 */
@ApiTags('custom-assets')
@ApiBearerAuth()
@UseGuards(JwtAuthGuard)
@Controller('api/custom-assets')
export class CustomAssetsController {
  constructor(@Inject(RPC_CLIENT) private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: "The user's custom assets", description: 'Oldest first.' })
  @ApiOkResponse({ schema: listSchema(asset) })
  @ApiCommonErrors({ auth: true })
  list(): Promise<ListCustomAssetsReply> {
    return this.rpc.request(CustomAssetSubjects.list, {});
  }

  @Post()
  @ApiOperation({ summary: 'Create a custom asset with its price', description: 'The ticker defaults to the name, upper-cased.' })
  @ApiBody({ schema: openApiSchema(createCustomAssetRequestSchema, 'input') })
  @ApiCreatedResponse({ schema: dataSchema(asset) })
  @ApiCommonErrors({ auth: true, validation: true })
  @ApiIdempotencyKey()
  create(@Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<CustomAssetReply> {
    const opts = idempotencyOptions(key);
    return this.rpc.request(CustomAssetSubjects.create, parseOrThrow(createCustomAssetRequestSchema, bodyObject(body)), opts);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change a custom asset (name, ticker, currency, description) or set its price' })
  @ApiIdParam('id', 'Custom asset')
  @ApiBody({ schema: openApiSchema(updateCustomAssetBodySchema, 'input') })
  @ApiOkResponse({ schema: dataSchema(asset) })
  @ApiOwnedResource({ validation: true, notFound: 'The custom asset' })
  update(@Param('id') id: string, @Body() body: unknown): Promise<CustomAssetReply> {
    const changes = parseOrThrow(updateCustomAssetBodySchema, bodyObject(body));
    return this.rpc.request(CustomAssetSubjects.update, { ...changes, id });
  }
}
