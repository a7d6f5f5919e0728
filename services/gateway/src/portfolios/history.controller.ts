import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type GetHistoryReply, getHistoryReplySchema, historyQuerySchema, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiIdParam, ApiOwnedResource } from '../common/resource.openapi.js';
import { ApiQueryFromSchema, openApiSchema } from '../docs/openapi.schemas.js';
import { withDecimalNumbers } from '../http/exact-json.js';
import { parseQuery } from '../validation/request-input.js';

/** Value over time: a portfolio's value and invested amount per day (docs/portfolio-statistics.md, "Value over time"). */
export function createPortfolioHistoryController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios/:id/history')
  class PortfolioHistoryController {
    @Get()
    @ApiOperation({
      summary: 'Portfolio value over time',
      description:
        "One point per day since the first deal (the last month, six months, year, or all): `value` = Σ quantity × that day's close (the last earlier close over weekends and holidays; an asset without any close yet at cost; today at the current price) and `invested` = the cost of the open positions that day (the holdings' invested). Exact decimals rounded to 8 places. `meta.complete` is false while the history of an asset is still being fetched.",
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiQueryFromSchema(historyQuerySchema, { range: '1M, 6M, 1Y or ALL (default ALL).' })
    @ApiOkResponse({ schema: openApiSchema(getHistoryReplySchema) })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio' })
    async get(@Param('id') id: string, @Query() query: Record<string, unknown>): Promise<GetHistoryReply> {
      const { range } = parseQuery(historyQuerySchema, query);
      return withDecimalNumbers(getHistoryReplySchema, await rpc.request<GetHistoryReply>(Subjects.portfolios.historyGet, { portfolio_id: id, range }));
    }
  }
  return PortfolioHistoryController;
}
