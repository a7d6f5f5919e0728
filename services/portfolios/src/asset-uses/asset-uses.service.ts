import { type GetAssetUsesReply, getAssetUsesRequestSchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { usesOf } from './asset-use.js';

/** `portfolios.asset-uses.get`: where an asset is in use, for the screener before it deletes one (asset-use.ts). */
export class AssetUsesService {
  constructor(private readonly db: Db) {}

  async get(input: unknown): Promise<GetAssetUsesReply> {
    const { asset } = parseOrThrow(getAssetUsesRequestSchema, input);
    return { data: { used_in: await this.db.transaction((tx) => usesOf(tx, asset)) } };
  }
}
