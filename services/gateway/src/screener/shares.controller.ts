import { applyDecorators, Controller, Get, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  Subjects,
  type ListCountriesReply,
  type ListShareCategoriesReply,
  type ListSharesQuery,
  type ListSharesReply,
  countrySchema,
  listSharesQuerySchema,
  shareCategorySchema,
  shareRowSchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiCommonErrors, ApiQueryFromSchema, listSchema, openApiSchema, pageSchema } from '../docs/openapi.schemas.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { pageLinks } from '../paging/page-links.js';
import { parseQuery } from '../validation/request-input.js';
import type { MarketEventsInvalidator } from './market-events.invalidator.js';
import { bodyFor, pageBody, type PublicPageCache, type SerializedPage, serializePage } from './public-page.cache.js';
import { PUBLIC_SHARES_ROUTE } from './public-page.hooks.js';
import { isAnonymous, publicCacheControl, sendPage } from './page-response.js';

const queryDocs = {
  page: 'Page number, from 1.',
  per_page: 'Rows per page (1-100).',
  sort: 'Sort column.',
  direction: 'Sort direction; rows without a value come last either way.',
  category: 'Category id or slug.',
  country_code: 'ISO 3166-1 alpha-2 country code.',
  search: 'Ticker, name or ISIN (Cyrillic or Latin).',
  dividend_yield_min: 'Lowest dividend yield, percent (included); shares with an unknown yield are left out.',
  dividend_yield_max: 'Highest dividend yield, percent (included).',
  market_cap_min: 'Lowest market cap, RUB (included); shares without one are left out.',
  market_cap_max: 'Highest market cap, RUB (included).',
};
const sharesPage = pageSchema(openApiSchema(shareRowSchema));

/** The signed-in route: a browser may keep it but must ask each time (a 304 when unchanged); shared caches must not. */
const PRIVATE_CACHE_CONTROL = 'private, no-cache';

/** The validators and the 304 of a page route, in the OpenAPI document. */
const ApiConditionalPage = (cacheControl: string) =>
  applyDecorators(
    ApiHeader({ name: 'If-None-Match', required: false, description: 'Entity tags of pages the client has; 304 when the page is still one of them (`*` and `W/` accepted).' }),
    ApiOkResponse({
      description: 'A page of screener rows.',
      schema: sharesPage,
      headers: {
        ETag: { description: 'Strong entity tag of the page; it changes when the data does.', schema: { type: 'string' } },
        'Cache-Control': { description: cacheControl, schema: { type: 'string' } },
      },
    }),
    ApiResponse({ status: 304, description: 'Not Modified: `If-None-Match` matched the current page; no body, same `ETag` and `Cache-Control`.' }),
  );

/**
 * Share screener: validates the query here (422 before any NATS traffic), reads from the screener service.
 * Pages carry an `ETag` and answer a matching `If-None-Match` with 304. Anonymous public pages come from the
 * gateway's PublicPageCache while fresh (cleared when market data change); the body is the same bytes either way.
 */
export function createSharesController({
  rpc,
  config,
  pages,
  invalidator,
  auth,
}: {
  rpc: RpcClient;
  config: GatewayConfig;
  pages: PublicPageCache;
  invalidator: MarketEventsInvalidator;
  auth: JwtAuthGuard;
}) {
  const publicPageCacheControl = publicCacheControl(pages.config.ttlMs);

  @ApiTags('screener')
  @Controller()
  class SharesController {
    @Get(PUBLIC_SHARES_ROUTE.slice(1))
    @ApiOperation({
      summary: 'Share screener (public)',
      description: 'A page of shares with market data and dividend yield; sortable and filterable. Cacheable: `ETag`, `Cache-Control: public, max-age=…`.',
    })
    @ApiQueryFromSchema(listSharesQuerySchema, queryDocs)
    @ApiConditionalPage('`public, max-age=<seconds>`: how long any cache may reuse the page (`SCREENER_PUBLIC_CACHE_TTL_MS`).')
    @ApiCommonErrors({ validation: true })
    async listPublic(@Query() rawQuery: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
      const query = parseQuery(listSharesQuerySchema, rawQuery);
      // Only anonymous requests share pages: one carrying credentials always reads afresh (and is not kept).
      // Hits are mostly answered before Nest (installPublicPageHits); what comes here is a miss, or a HEAD.
      if (isAnonymous(request) && pages.config.ttlMs > 0 && invalidator.live()) {
        const page = await pages.get(pages.keyOf(request.url, () => query), () => this.load(query));
        sendPage(request, reply, page, publicPageCacheControl, () => bodyFor(page, request.url, config.publicBaseUrl));
        return;
      }
      this.sendUncached(request, reply, await this.load(query), publicPageCacheControl);
    }

    @Get('api/shares')
    @UseGuards(auth)
    @ApiBearerAuth()
    @ApiOperation({ summary: 'Share screener (authenticated)', description: 'The same rows as the public screener, for a signed-in user; never cached by the gateway.' })
    @ApiQueryFromSchema(listSharesQuerySchema, queryDocs)
    @ApiConditionalPage(`\`${PRIVATE_CACHE_CONTROL}\`: a browser revalidates every time; shared caches keep nothing.`)
    @ApiCommonErrors({ validation: true, auth: true })
    async listForUser(@Query() rawQuery: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
      const query = parseQuery(listSharesQuerySchema, rawQuery);
      reply.header('vary', 'Authorization');
      this.sendUncached(request, reply, await this.load(query), PRIVATE_CACHE_CONTROL);
    }

    @Get('api/public/shares/categories')
    @ApiOperation({ summary: 'Share categories with the number of shares in each' })
    @ApiOkResponse({ description: 'Every category.', schema: listSchema(openApiSchema(shareCategorySchema)) })
    @ApiCommonErrors()
    categories(): Promise<ListShareCategoriesReply> {
      return rpc.request(Subjects.screener.categoriesList, {});
    }

    @Get('api/public/shares/countries')
    @ApiOperation({ summary: 'Countries of listed shares with the number of shares in each' })
    @ApiOkResponse({ description: 'Every country that has shares.', schema: listSchema(openApiSchema(countrySchema)) })
    @ApiCommonErrors()
    countries(): Promise<ListCountriesReply> {
      return rpc.request(Subjects.screener.countriesList, {});
    }

    private sendUncached(request: FastifyRequest, reply: FastifyReply, page: SerializedPage, cacheControl: string): void {
      sendPage(request, reply, page, cacheControl, () => pageBody(page, pageLinks(request.url, page.meta, config.publicBaseUrl)));
    }

    private async load(query: ListSharesQuery): Promise<SerializedPage> {
      return serializePage(await rpc.request<ListSharesReply>(Subjects.screener.sharesList, query), config.publicBaseUrl);
    }
  }
  return SharesController;
}
