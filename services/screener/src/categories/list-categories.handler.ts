import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListShareCategoriesReply, type RpcRequest, Subjects, listShareCategoriesQuerySchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { SCREENER_DB } from '../screener.tokens.js';
import { listShareCategories } from './list-categories.query.js';

@Controller()
export class ListCategoriesHandler {
  constructor(@Inject(SCREENER_DB) private readonly db: Db) {}

  /** `{ data: [{ id, slug, name, shares_count }] }` */
  @MessagePattern(Subjects.screener.categoriesList)
  list(@Payload() request: RpcRequest<unknown>): Promise<ListShareCategoriesReply> {
    parseOrThrow(listShareCategoriesQuerySchema, request?.data ?? {});
    return listShareCategories(this.db);
  }
}
