import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type GetStatisticsReply, getStatisticsReplySchema, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { RPC_CLIENT } from '../gateway.tokens.js';
import { ApiIdParam, ApiOwnedResource } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';

/** Portfolio statistics (formulas: docs/portfolio-statistics.md). */
@ApiTags('portfolios')
@UseGuards(JwtAuthGuard)
@Controller('api/portfolios/:id/statistics')
export class PortfolioStatisticsController {
  constructor(@Inject(RPC_CLIENT) private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({
    summary: 'Portfolio statistics',
    description:
      'Per ticker figures, totals (incl. XIRR) and health metrics. `meta.source` says whether the answer came from the 50-second hydrated cache, the 7-day state cache, or was computed from the deals.',
  })
  @ApiIdParam('id', 'Portfolio')
  @ApiOkResponse({ schema: openApiSchema(getStatisticsReplySchema) })
  @ApiOwnedResource({ notFound: 'The portfolio' })
  get(@Param('id') id: string): Promise<GetStatisticsReply> {
    return this.rpc.request(Subjects.portfolios.statisticsGet, { portfolio_id: id });
  }
}
