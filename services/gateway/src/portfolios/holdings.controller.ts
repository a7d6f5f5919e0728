import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type GetHoldingsReply, getHoldingsReplySchema, PORTFOLIO_FIGURES, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiIdParam, ApiOwnedResource } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { withDecimalNumbers } from '../http/exact-json.js';

const definitions = Object.entries(PORTFOLIO_FIGURES)
  .map(([field, f]) => {
    const same = [f.statistics && `total \`${f.statistics}\``, f.ticker && `ticker \`${f.ticker}\``].filter(Boolean).join(', ');
    return `- \`${field}\`${same ? ` (statistics: ${same})` : ''}: ${f.text}`;
  })
  .join('\n');

/** Holdings: the positions of a portfolio with the figures defined once (docs/portfolio-statistics.md, "Holdings"). */
export function createPortfolioHoldingsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios/:id/holdings')
  class PortfolioHoldingsController {
    @Get()
    @ApiOperation({
      summary: 'Portfolio holdings',
      description: `One row per position (open or closed, largest value first) and the totals. Money and quantities are exact decimals rounded to 8 places; percentages and weights are rounded to 4 places. Each figure equals the statistics field named beside it.\n\n${definitions}`,
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiOkResponse({ schema: openApiSchema(getHoldingsReplySchema) })
    @ApiOwnedResource({ notFound: 'The portfolio' })
    async get(@Param('id') id: string): Promise<GetHoldingsReply> {
      return withDecimalNumbers(getHoldingsReplySchema, await rpc.request<GetHoldingsReply>(Subjects.portfolios.holdingsGet, { portfolio_id: id }));
    }
  }
  return PortfolioHoldingsController;
}
