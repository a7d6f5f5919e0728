import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type GetPortfolioDividendsReply, getPortfolioDividendsReplySchema, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiIdParam, ApiOwnedResource } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';

/** Dividends of a portfolio: the expected ones of its open positions and the income received per year. */
export function createPortfolioDividendsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios/:id/dividends')
  class PortfolioDividendsController {
    @Get()
    @ApiOperation({
      summary: 'Portfolio dividends',
      description:
        '`expected`: the dividends of the open positions with a record date today or later (market day), soonest first, each with the amount due on the current quantity (`per_share` x `quantity`, in the dividend’s `currency`); `payment_date` is null while the source does not give it. `received_by_year`: Σ quantity x price of the dividend and coupon deals of each year (the holdings’ `dividends`, per year), in the portfolio’s currency. Exact decimals as strings, rounded to 8 places.',
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiOkResponse({ schema: openApiSchema(getPortfolioDividendsReplySchema) })
    @ApiOwnedResource({ notFound: 'The portfolio' })
    async get(@Param('id') id: string): Promise<GetPortfolioDividendsReply> {
      return getPortfolioDividendsReplySchema.parse(await rpc.request<GetPortfolioDividendsReply>(Subjects.portfolios.dividendsGet, { portfolio_id: id }));
    }
  }
  return PortfolioDividendsController;
}
