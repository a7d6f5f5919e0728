import { applyDecorators, Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ASSET_CLOSES_RANGES,
  type AssetCloses,
  type GetAssetPageReply,
  type GetClosesReply,
  PUBLIC_ASSET_TYPES,
  Subjects,
  assetClosesQuerySchema,
  assetClosesSchema,
  assetPageSchema,
  getAssetPageRequestSchema,
  unpackCloses,
} from '@invest/contracts';
import { type RpcClient, ServiceError } from '@invest/platform';
import { dataSchema, notFoundSchema } from '../common/resource.openapi.js';
import { ApiCommonErrors, ApiQueryFromSchema, openApiSchema } from '../docs/openapi.schemas.js';
import { parseQuery } from '../validation/request-input.js';

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The dates a chart range covers. `to` is tomorrow in UTC: the market day (Moscow, UTC+3) is never later than
 * that, so today's close is always inside; a day with no close simply has none.
 */
export function closesWindow(range: keyof typeof ASSET_CLOSES_RANGES, now = new Date()): { from: string; to: string } {
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - ASSET_CLOSES_RANGES[range], now.getUTCDate()));
  return { from: isoDay(from), to: isoDay(to) };
}

const ApiAssetParams = () =>
  applyDecorators(
    ApiParam({ name: 'type', enum: [...PUBLIC_ASSET_TYPES], description: 'Asset type.' }),
    ApiParam({ name: 'ticker', description: 'Ticker (MOEX SECID, or the token symbol), any case.' }),
    ApiResponse({ status: 404, description: 'No market asset of this type has this ticker.', schema: notFoundSchema }),
  );

/**
 * The public asset page: one market asset's identity, key figures and dividends, and its daily closes for the
 * chart. Public like the screener; what is the user's own (holdings, alerts) comes from their own routes.
 */
export function createAssetPageController({ rpc }: { rpc: RpcClient }) {
  @ApiTags('screener')
  @Controller('api/public/assets')
  class AssetPageController {
    @Get(':type/:ticker')
    @ApiOperation({ summary: 'One market asset: key figures and dividends (public)' })
    @ApiAssetParams()
    @ApiOkResponse({ description: 'The asset.', schema: dataSchema(openApiSchema(assetPageSchema)) })
    @ApiCommonErrors()
    get(@Param('type') type: string, @Param('ticker') ticker: string): Promise<GetAssetPageReply> {
      return rpc.request<GetAssetPageReply>(Subjects.screener.assetPage, this.ref(type, ticker));
    }

    @Get(':type/:ticker/closes')
    @ApiOperation({ summary: 'Daily closes of one market asset over 1M, 6M or 1Y (public)' })
    @ApiAssetParams()
    @ApiQueryFromSchema(assetClosesQuerySchema, { range: 'Chart range: 1M (default), 6M or 1Y.' })
    @ApiOkResponse({ description: 'The closes, oldest first.', schema: dataSchema(openApiSchema(assetClosesSchema)) })
    @ApiCommonErrors({ validation: true })
    async closes(@Param('type') type: string, @Param('ticker') ticker: string, @Query() rawQuery: Record<string, unknown>): Promise<{ data: AssetCloses }> {
      const { range } = parseQuery(assetClosesQuerySchema, rawQuery);
      const asset = (await rpc.request<GetAssetPageReply>(Subjects.screener.assetPage, this.ref(type, ticker))).data;
      const { from, to } = closesWindow(range);
      // About 250 market days a year: one reply, far below MAX_CLOSES_PER_REPLY.
      const reply = await rpc.request<GetClosesReply>(Subjects.screener.closesGet, { refs: [{ type: asset.type, id: asset.id }], from, to });
      const row = reply.data.find((r) => r.id === asset.id);
      const { dates, closes } = row ? unpackCloses(row) : { dates: [], closes: [] };
      return { data: { range, from, to, dates, closes, backfilling: reply.backfilling.length > 0 } };
    }

    /** A type or ticker no market asset can have is simply not found (a path names a page, not a query). */
    private ref(type: string, ticker: string) {
      const parsed = getAssetPageRequestSchema.safeParse({ type, ticker });
      if (!parsed.success) throw ServiceError.notFound('Asset');
      return parsed.data;
    }
  }
  return AssetPageController;
}
