import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ASSET_SEARCH_MAX_LIMIT, type SearchAssetsReply, Subjects, assetSearchRowSchema, searchAssetsQuerySchema } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import { OptionalJwtAuthGuard } from '../auth/jwt-auth.guard.js';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiCommonErrors, ApiQueryFromSchema, listSchema, openApiSchema } from '../docs/openapi.schemas.js';
import { parseQuery } from '../validation/request-input.js';

const queryDocs = {
  search: 'Ticker, name or ISIN, Latin or Cyrillic, any case (ё = е); several words must each start a word of the name.',
  type: 'One asset type only.',
  limit: `Most assets answered (1-${ASSET_SEARCH_MAX_LIMIT}).`,
};

/**
 * The asset search of the pickers (deal form, alert dialog): every asset type in one list, best match first.
 * Anyone may search the market; a signed-in user also finds their own custom assets (and only theirs). The query
 * is validated here (422 before any NATS traffic); the screener, which owns the catalogues, searches and ranks.
 */
export function createAssetsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('screener')
  @Controller('api/assets')
  class AssetsController {
    @Get()
    @UseGuards(new OptionalJwtAuthGuard(auth))
    @ApiBearerAuth()
    @ApiOperation({
      summary: 'Search assets of every type',
      description:
        'Shares, bonds, ETFs, futures, currencies, tokens and, with a bearer token, the user\'s own custom assets. Order: exact ticker (or ISIN), ticker prefix, name words, any other match. Without `search`, assets by ticker. A bearer token is optional; a bad one is a 401.',
    })
    @ApiQueryFromSchema(searchAssetsQuerySchema, queryDocs)
    @ApiOkResponse({ description: 'At most `limit` assets, best match first.', schema: listSchema(openApiSchema(assetSearchRowSchema)) })
    @ApiCommonErrors({ validation: true, auth: true })
    search(@Query() rawQuery: Record<string, unknown>): Promise<SearchAssetsReply> {
      const query = parseQuery(searchAssetsQuerySchema, rawQuery);
      return rpc.request<SearchAssetsReply>(Subjects.screener.assetsSearch, query);
    }
  }
  return AssetsController;
}
