import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ListCountriesReply, type RpcRequest, Subjects, listCountriesQuerySchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { SCREENER_DB } from '../screener.tokens.js';
import { listCountries } from './list-countries.query.js';

@Controller()
export class ListCountriesHandler {
  constructor(@Inject(SCREENER_DB) private readonly db: Db) {}

  /** `{ data: [{ code, name, shares_count }] }` */
  @MessagePattern(Subjects.screener.countriesList)
  list(@Payload() request: RpcRequest<unknown>): Promise<ListCountriesReply> {
    parseOrThrow(listCountriesQuerySchema, request?.data ?? {});
    return listCountries(this.db);
  }
}
