import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  createPortfolioRequestSchema,
  listPortfoliosReplySchema,
  type ListPortfoliosReply,
  portfolioListItemSchema,
  type PortfolioReply,
  portfolioSchema,
  Subjects,
  updatePortfolioBodySchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { listSchema } from '../docs/openapi.schemas.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { ApiIdParam, ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { parseBody } from '../validation/request-input.js';
import { withDecimalNumbers } from '../http/exact-json.js';

const portfolio = openApiSchema(portfolioSchema);

/**
 * Portfolios of the signed-in user. Bodies are validated here with the contract schemas (422 before
 * any NATS traffic); the portfolios service validates again and decides ownership (404).
 */
export function createPortfoliosController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios')
  class PortfoliosController {
    @Get()
    @ApiOperation({
      summary: "The user's portfolios",
      description: 'Oldest first, with open position and deal counts, and value, invested and gain as in the holdings totals.',
    })
    @ApiOkResponse({ schema: listSchema(openApiSchema(portfolioListItemSchema)) })
    @ApiOwnedResource()
    async list(): Promise<ListPortfoliosReply> {
      return withDecimalNumbers(listPortfoliosReplySchema, await rpc.request<ListPortfoliosReply>(Subjects.portfolios.portfoliosList, {}));
    }

    @Post()
    @ApiOperation({ summary: 'Create a portfolio' })
    @ApiBody({ schema: openApiSchema(createPortfolioRequestSchema, 'input') })
    @ApiCreatedResponse({ schema: dataSchema(portfolio) })
    @ApiOwnedResource({ validation: true })
    @ApiIdempotencyKey()
    create(@Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<PortfolioReply> {
      const opts = idempotencyOptions(key);
      return rpc.request(Subjects.portfolios.portfoliosCreate, parseBody(createPortfolioRequestSchema, body), opts);
    }

    @Get(':id')
    @ApiOperation({ summary: 'One portfolio' })
    @ApiIdParam('id', 'Portfolio')
    @ApiOkResponse({ schema: dataSchema(portfolio) })
    @ApiOwnedResource({ notFound: 'The portfolio' })
    get(@Param('id') id: string): Promise<PortfolioReply> {
      return rpc.request(Subjects.portfolios.portfoliosGet, { id });
    }

    @Patch(':id')
    @ApiOperation({ summary: 'Rename a portfolio or change its currency', description: 'A currency change invalidates the cached statistics.' })
    @ApiIdParam('id', 'Portfolio')
    @ApiBody({ schema: openApiSchema(updatePortfolioBodySchema, 'input') })
    @ApiOkResponse({ schema: dataSchema(portfolio) })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio' })
    update(@Param('id') id: string, @Body() body: unknown): Promise<PortfolioReply> {
      const changes = parseBody(updatePortfolioBodySchema, body);
      return rpc.request(Subjects.portfolios.portfoliosUpdate, { ...changes, id });
    }

    @Delete(':id')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a portfolio with its deals' })
    @ApiIdParam('id', 'Portfolio')
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiOwnedResource({ notFound: 'The portfolio' })
    async delete(@Param('id') id: string): Promise<void> {
      await rpc.request(Subjects.portfolios.portfoliosDelete, { id });
    }
  }
  return PortfoliosController;
}
