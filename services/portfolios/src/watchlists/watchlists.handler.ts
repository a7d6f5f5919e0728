import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import type { WatchlistService } from './watchlist.service.js';
import { idempotencyKeyOf, requireUser } from '@invest/platform';

/** `portfolios.watchlists.*` and `portfolios.watchlist-items.*` */
export function createWatchlistsHandler(watchlists: WatchlistService) {
  @Controller()
  class WatchlistsHandler {
    @MessagePattern(Subjects.portfolios.watchlistsList)
    list(@Payload() req: RpcRequest<unknown>) {
      return watchlists.list(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.portfolios.watchlistsCreate)
    create(@Payload() req: RpcRequest<unknown>) {
      return watchlists.create(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.portfolios.watchlistsDelete)
    delete(@Payload() req: RpcRequest<unknown>) {
      return watchlists.delete(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.portfolios.watchlistItemsCreate)
    addItem(@Payload() req: RpcRequest<unknown>) {
      return watchlists.addItem(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.portfolios.watchlistItemsDelete)
    removeItem(@Payload() req: RpcRequest<unknown>) {
      return watchlists.removeItem(requireUser(req.meta), req.data);
    }
  }
  return WatchlistsHandler;
}
