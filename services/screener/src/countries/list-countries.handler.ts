import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListCountriesReply, type RpcRequest, Subjects, listCountriesQuerySchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { listCountries } from './list-countries.query.js';

export function createListCountriesHandler(db: Db) {
  @Controller()
  class ListCountriesHandler {
    /** `{ data: [{ code, name, shares_count }] }` */
    @MessagePattern(Subjects.screener.countriesList)
    list(@Payload() request: RpcRequest<unknown>): Promise<ListCountriesReply> {
      parseOrThrow(listCountriesQuerySchema, request?.data ?? {});
      return listCountries(db);
    }
  }
  return ListCountriesHandler;
}
