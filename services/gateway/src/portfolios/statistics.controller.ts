import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type GetStatisticsReply, getStatisticsReplySchema, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiIdParam, ApiOwnedResource } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { withDecimalNumbers } from '../http/exact-json.js';

/** Portfolio statistics (formulas: docs/portfolio-statistics.md). */
export function createPortfolioStatisticsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios/:id/statistics')
  class PortfolioStatisticsController {
    @Get()
    @ApiOperation({
      summary: 'Portfolio statistics',
      description:
        'Per ticker figures, totals (incl. XIRR) and health metrics. Money and quantities are exact decimals rounded to 8 places (JSON numbers whose digits are exact). `meta.source` says whether the answer came from the 50-second hydrated cache, the 7-day state cache, or was computed from the deals.',
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiOkResponse({ schema: openApiSchema(getStatisticsReplySchema) })
    @ApiOwnedResource({ notFound: 'The portfolio' })
    async get(@Param('id') id: string): Promise<GetStatisticsReply> {
      return withDecimalNumbers(getStatisticsReplySchema, await rpc.request<GetStatisticsReply>(Subjects.portfolios.statisticsGet, { portfolio_id: id }));
    }
  }
  return PortfolioStatisticsController;
}
