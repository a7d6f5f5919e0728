import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  addWatchlistItemBodySchema,
  createWatchlistRequestSchema,
  type ListWatchlistsPageReply,
  type ListWatchlistsReply,
  Subjects,
  type WatchlistItemReply,
  watchlistItemSchema,
  type WatchlistReply,
  watchlistSchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { listSchema } from '../docs/openapi.schemas.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { ApiIdParam, ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { allPages } from '../paging/all-pages.js';
import { parseBody } from '../validation/request-input.js';

const watchlist = openApiSchema(watchlistSchema);

/** Watchlists of the signed-in user and their items (asset references). */
export function createWatchlistsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('watchlists')
  @UseGuards(auth)
  @Controller('api/watchlists')
  class WatchlistsController {
    @Get()
    @ApiOperation({ summary: "The user's watchlists with their items" })
    @ApiOkResponse({ schema: listSchema(watchlist) })
    @ApiOwnedResource()
    async list(): Promise<ListWatchlistsReply> {
      // Page by page: at the limits (50 watchlists of 500 items) the whole list is megabytes, more than one NATS
      // message holds.
      const subject = Subjects.portfolios.watchlistsList;
      const pages = await allPages(
        subject,
        (after) => rpc.request<ListWatchlistsPageReply>(subject, after === undefined ? {} : { after }),
        (page) => page.next_after,
      );
      return { data: pages.flatMap((page) => page.data) };
    }

    @Post()
    @ApiOperation({ summary: 'Create a watchlist' })
    @ApiBody({ schema: openApiSchema(createWatchlistRequestSchema, 'input') })
    @ApiCreatedResponse({ schema: dataSchema(watchlist) })
    @ApiOwnedResource({ validation: true })
    @ApiIdempotencyKey()
    create(@Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<WatchlistReply> {
      const opts = idempotencyOptions(key);
      return rpc.request(Subjects.portfolios.watchlistsCreate, parseBody(createWatchlistRequestSchema, body), opts);
    }

    @Delete(':id')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a watchlist with its items' })
    @ApiIdParam('id', 'Watchlist')
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiOwnedResource({ notFound: 'The watchlist' })
    async delete(@Param('id') id: string): Promise<void> {
      await rpc.request(Subjects.portfolios.watchlistsDelete, { id });
    }

    @Post(':id/items')
    @ApiOperation({ summary: 'Add an asset to a watchlist', description: 'An unknown asset, or one already in the watchlist, is a 422.' })
    @ApiIdParam('id', 'Watchlist')
    @ApiBody({ schema: { ...openApiSchema(addWatchlistItemBodySchema, 'input'), example: { assetable: { type: 'share', id: 123 } } } })
    @ApiCreatedResponse({ schema: dataSchema(openApiSchema(watchlistItemSchema)) })
    @ApiOwnedResource({ validation: true, notFound: 'The watchlist' })
    @ApiIdempotencyKey()
    addItem(@Param('id') id: string, @Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<WatchlistItemReply> {
      const opts = idempotencyOptions(key);
      const parsed = parseBody(addWatchlistItemBodySchema, body);
      return rpc.request(Subjects.portfolios.watchlistItemsCreate, { ...parsed, watchlist_id: id }, opts);
    }

    @Delete(':id/items/:itemId')
    @HttpCode(204)
    @ApiOperation({ summary: 'Remove an item from a watchlist' })
    @ApiIdParam('id', 'Watchlist')
    @ApiIdParam('itemId', 'Watchlist item')
    @ApiNoContentResponse({ description: 'Removed.' })
    @ApiOwnedResource({ notFound: 'The watchlist or the item' })
    async removeItem(@Param('id') id: string, @Param('itemId') itemId: string): Promise<void> {
      await rpc.request(Subjects.portfolios.watchlistItemsDelete, { watchlist_id: id, item_id: itemId });
    }
  }
  return WatchlistsController;
}
