import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { createDealBodySchema, type Deal, type DealReply, dealSchema, type ListDealsReply, pageQuerySchema, Subjects } from '@invest/contracts';
import { z } from 'zod';
import type { RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { ApiQueryFromSchema, pageSchema } from '../docs/openapi.schemas.js';
import { withDecimalNumbers } from '../http/exact-json.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { type LinkedPage, withLinks } from '../paging/page-links.js';
import { ApiIdParam, ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { parseBody, parseQuery } from '../validation/request-input.js';

const deal = openApiSchema(dealSchema);
const dealReply = z.object({ data: dealSchema });
const dealsPage = z.object({ data: z.array(dealSchema) });

/** Deals of one of the user's portfolios. */
export function createDealsController({ rpc, config, auth }: { rpc: RpcClient; config: GatewayConfig; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios/:id/deals')
  class DealsController {
    @Get()
    @ApiOperation({ summary: "A page of the portfolio's deals", description: 'Newest date first.' })
    @ApiIdParam('id', 'Portfolio')
    @ApiQueryFromSchema(pageQuerySchema, { page: 'Page number, from 1.', per_page: 'Rows per page (1-100).' })
    @ApiOkResponse({ schema: pageSchema(deal) })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio' })
    async list(@Param('id') id: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest): Promise<LinkedPage<Deal>> {
      const paging = parseQuery(pageQuerySchema, query);
      const page = await rpc.request<ListDealsReply>(Subjects.portfolios.dealsList, { ...paging, portfolio_id: id });
      return withDecimalNumbers(dealsPage, withLinks(page, request.url, config.publicBaseUrl));
    }

    @Post()
    @ApiOperation({
      summary: 'Record a deal',
      description:
        'Types: buy, sell, dividend, coupon, fee, tax; amount = quantity x price. Quantity, price and commission are exact decimals: at most 8 decimal places, at most 1e15 (a JSON number or a decimal string); the answer repeats them digit for digit. Selling more than is held at the date, an unknown asset or a future date is a 422.',
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiBody({
      schema: {
        ...openApiSchema(createDealBodySchema, 'input'),
        example: { type: 'buy', assetable: { type: 'share', id: 123 }, quantity: 10, price: 250, commission: 0, date: '2024-01-10' },
      },
    })
    @ApiCreatedResponse({ schema: dataSchema(deal) })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio' })
    @ApiIdempotencyKey()
    async create(@Param('id') id: string, @Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<DealReply> {
      const opts = idempotencyOptions(key);
      const parsed = parseBody(createDealBodySchema, body);
      return withDecimalNumbers(dealReply, await rpc.request<DealReply>(Subjects.portfolios.dealsCreate, { ...parsed, portfolio_id: id }, opts));
    }

    @Delete(':dealId')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a deal', description: 'A 422 when a later sell would then sell more than is held.' })
    @ApiIdParam('id', 'Portfolio')
    @ApiIdParam('dealId', 'Deal')
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio or the deal' })
    async delete(@Param('id') id: string, @Param('dealId') dealId: string): Promise<void> {
      await rpc.request(Subjects.portfolios.dealsDelete, { portfolio_id: id, deal_id: dealId });
    }
  }
  return DealsController;
}
