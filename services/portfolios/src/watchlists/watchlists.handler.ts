import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { WATCHLIST_SERVICE } from '../portfolios.tokens.js';
import type { WatchlistService } from './watchlist.service.js';
import { idempotencyKeyOf, requireUser } from '@invest/platform';

/** `portfolios.watchlists.*` and `portfolios.watchlist-items.*` */
@Controller()
export class WatchlistsHandler {
  constructor(@Inject(WATCHLIST_SERVICE) private readonly watchlists: WatchlistService) {}

  @MessagePattern(Subjects.portfolios.watchlistsList)
  list(@Payload() req: RpcRequest<unknown>) {
    return this.watchlists.list(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.portfolios.watchlistsCreate)
  create(@Payload() req: RpcRequest<unknown>) {
    return this.watchlists.create(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
  }

  @MessagePattern(Subjects.portfolios.watchlistsDelete)
  delete(@Payload() req: RpcRequest<unknown>) {
    return this.watchlists.delete(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.portfolios.watchlistItemsCreate)
  addItem(@Payload() req: RpcRequest<unknown>) {
    return this.watchlists.addItem(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
  }

  @MessagePattern(Subjects.portfolios.watchlistItemsDelete)
  removeItem(@Payload() req: RpcRequest<unknown>) {
    return this.watchlists.removeItem(requireUser(req.meta), req.data);
  }
}
