import { Controller, Get, Inject, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  Subjects,
  type ListCountriesReply,
  type ListShareCategoriesReply,
  type ListSharesReply,
  type ShareRow,
  countrySchema,
  listSharesQuerySchema,
  shareCategorySchema,
  shareRowSchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiCommonErrors, ApiQueryFromSchema, listSchema, openApiSchema, pageSchema } from '../docs/openapi.schemas.js';
import { GATEWAY_CONFIG, RPC_CLIENT } from '../gateway.tokens.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { type LinkedPage, withLinks } from '../paging/page-links.js';
import { parseQuery } from '../validation/request-input.js';

const queryDocs = {
  page: 'Page number, from 1.',
  per_page: 'Rows per page (1-100).',
  sort: 'Sort column.',
  direction: 'Sort direction; rows without a value come last either way.',
  category: 'Category id or slug.',
  country_code: 'ISO 3166-1 alpha-2 country code.',
  search: 'Ticker, name or ISIN (Cyrillic or Latin).',
};
const sharesPage = pageSchema(openApiSchema(shareRowSchema));

/** Share screener: validates the query here (422 before any NATS traffic), reads from the screener service. */
@ApiTags('screener')
@Controller()
export class SharesController {
  constructor(
    @Inject(RPC_CLIENT) private readonly rpc: RpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('api/public/shares')
  @ApiOperation({ summary: 'Share screener (public)', description: 'A page of shares with market data and dividend yield; sortable and filterable.' })
  @ApiQueryFromSchema(listSharesQuerySchema, queryDocs)
  @ApiOkResponse({ description: 'A page of screener rows.', schema: sharesPage })
  @ApiCommonErrors({ validation: true })
  listPublic(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest): Promise<LinkedPage<ShareRow>> {
    return this.list(query, request.url);
  }

  @Get('api/shares')
  @UseGuards(JwtAuthGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Share screener (authenticated)', description: 'The same rows as the public screener, for a signed-in user.' })
  @ApiQueryFromSchema(listSharesQuerySchema, queryDocs)
  @ApiOkResponse({ description: 'A page of screener rows.', schema: sharesPage })
  @ApiCommonErrors({ validation: true, auth: true })
  listForUser(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest): Promise<LinkedPage<ShareRow>> {
    return this.list(query, request.url);
  }

  @Get('api/public/shares/categories')
  @ApiOperation({ summary: 'Share categories with the number of shares in each' })
  @ApiOkResponse({ description: 'Every category.', schema: listSchema(openApiSchema(shareCategorySchema)) })
  @ApiCommonErrors()
  categories(): Promise<ListShareCategoriesReply> {
    return this.rpc.request(Subjects.screener.categoriesList, {});
  }

  @Get('api/public/shares/countries')
  @ApiOperation({ summary: 'Countries of listed shares with the number of shares in each' })
  @ApiOkResponse({ description: 'Every country that has shares.', schema: listSchema(openApiSchema(countrySchema)) })
  @ApiCommonErrors()
  countries(): Promise<ListCountriesReply> {
    return this.rpc.request(Subjects.screener.countriesList, {});
  }

  private async list(rawQuery: Record<string, unknown>, url: string): Promise<LinkedPage<ShareRow>> {
    const query = parseQuery(listSharesQuerySchema, rawQuery);
    const page = await this.rpc.request<ListSharesReply>(Subjects.screener.sharesList, query);
    return withLinks(page, url, this.config.publicBaseUrl);
  }
}
