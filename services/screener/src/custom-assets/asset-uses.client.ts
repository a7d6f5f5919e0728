import { type AssetRef, type AssetUse, getAssetUsesReplySchema, Subjects } from '@invest/contracts';
import type { RpcClient } from '@invest/platform';

/** Where an asset is in use (the portfolios service's answer). */
export interface AssetUsesSource {
  usesOf(asset: AssetRef): Promise<AssetUse[]>;
}

/** `portfolios.asset-uses.get` over NATS; an answer of another shape is an error, never "no uses". */
export class PortfoliosAssetUses implements AssetUsesSource {
  constructor(private readonly rpc: RpcClient) {}

  async usesOf(asset: AssetRef): Promise<AssetUse[]> {
    const reply = getAssetUsesReplySchema.parse(await this.rpc.request(Subjects.portfolios.assetUsesGet, { asset }));
    return reply.data.used_in;
  }
}
