import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListShareCategoriesReply, type RpcRequest, Subjects, listShareCategoriesQuerySchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { listShareCategories } from './list-categories.query.js';

export function createListCategoriesHandler(db: Db) {
  @Controller()
  class ListCategoriesHandler {
    /** `{ data: [{ id, slug, name, shares_count }] }` */
    @MessagePattern(Subjects.screener.categoriesList)
    list(@Payload() request: RpcRequest<unknown>): Promise<ListShareCategoriesReply> {
      parseOrThrow(listShareCategoriesQuerySchema, request?.data ?? {});
      return listShareCategories(db);
    }
  }
  return ListCategoriesHandler;
}
