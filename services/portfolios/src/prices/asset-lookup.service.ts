import { type AssetRef, assetInfoSchema, CustomAssetSubjects, type GetAssetsReply, type ListCustomAssetsReply, Subjects } from '@invest/contracts';
import { type Db, type Logger, type RpcClient, ServiceError } from '@invest/platform';
import { z } from 'zod';
import { assetKey } from '../statistics/statistics.types.js';
import { type CatalogAsset, findAssets, upsertFromScreener } from './asset-catalog.repository.js';

const replySchema = z.object({ data: z.array(assetInfoSchema) });
const customAssetsReplySchema = z.object({ data: z.array(z.object({ id: z.number().int() })) });

/**
 * Validates asset references against the local catalog first; asks the screener (`screener.assets.get`)
 * once for the ones it does not know (or knows only from RatesUpdated, without a name) and stores the
 * answer. An asset the screener does not return does not exist.
 */
export class AssetLookup {
  constructor(
    private readonly db: Db,
    private readonly rpc: RpcClient,
    private readonly logger: Logger,
  ) {}

  async resolve(refs: readonly AssetRef[]): Promise<{ found: Map<string, CatalogAsset>; missing: AssetRef[] }> {
    const unique = [...new Map(refs.map((r) => [assetKey(r), { type: r.type, id: r.id }])).values()];
    const found = await findAssets(this.db, unique);
    const unknown = unique.filter((r) => !found.has(assetKey(r)));
    const undescribed = unique.filter((r) => found.get(assetKey(r))?.described === false);
    const ask = [...unknown, ...undescribed];
    if (ask.length > 0) {
      try {
        const reply = replySchema.parse(await this.rpc.request<GetAssetsReply>(Subjects.screener.assetsGet, { refs: ask }));
        // Only what was asked for: a reply row for another asset is ignored.
        const asked = new Set(ask.map(assetKey));
        await upsertFromScreener(this.db, reply.data.filter((a) => asked.has(assetKey(a))));
        for (const [key, asset] of await findAssets(this.db, ask)) found.set(key, asset);
      } catch (err) {
        // Known-but-undescribed assets still exist; only truly unknown ones need the screener's answer.
        if (unknown.length > 0) {
          if (err instanceof ServiceError) throw err;
          this.logger.error({ err }, 'screener.assets.get answered in an unexpected shape');
          throw ServiceError.unavailable('The screener service answered unexpectedly.');
        }
        this.logger.warn({ err, refs: undescribed }, 'could not describe assets known only from rates; continuing');
      }
    }
    return { found, missing: unique.filter((r) => !found.has(assetKey(r))) };
  }

  /**
   * Resolves one reference for `userId` or throws a 422 naming `field`. A custom asset belongs to its
   * owner: another user's is treated as not existing (the catalog and `screener.assets.get` know every
   * user's, so ownership is asked of the screener's per-user list).
   */
  async require(ref: AssetRef, userId: string, field = 'assetable'): Promise<CatalogAsset> {
    const missing = () => ServiceError.validation({ [`${field}.id`]: [`The selected ${ref.type} (id ${ref.id}) does not exist.`] });
    if (ref.type === 'custom_asset' && !(await this.ownsCustomAsset(userId, ref.id))) throw missing();
    const { found } = await this.resolve([ref]);
    const asset = found.get(assetKey(ref));
    if (!asset) throw missing();
    return asset;
  }

  private async ownsCustomAsset(userId: string, id: number): Promise<boolean> {
    const raw = await this.rpc.request<ListCustomAssetsReply>(CustomAssetSubjects.list, {}, { userId });
    const reply = customAssetsReplySchema.safeParse(raw);
    if (!reply.success) {
      this.logger.error({ issues: reply.error.issues.slice(0, 5) }, 'screener.custom-assets.list answered in an unexpected shape');
      throw ServiceError.unavailable('The screener service answered unexpectedly.');
    }
    return reply.data.data.some((a) => a.id === id);
  }
}
