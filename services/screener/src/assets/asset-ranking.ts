import type { AssetType } from '@invest/contracts';

/** What the ranking reads of an asset. */
export interface RankableAsset {
  id: number;
  type: AssetType;
  ticker: string;
  name: string;
  shortName?: string | null;
  latinName?: string | null;
  isin?: string | null;
}

/** How well an asset matches a search, best first. */
export const MatchTier = {
  /** The ticker (or the ISIN) is the search. */
  Exact: 0,
  /** The ticker starts with the search. */
  TickerPrefix: 1,
  /** Every word of the search starts a word of the name (full, short or Latin). */
  NameWords: 2,
  /** Every word of the search is somewhere in the ticker, ISIN or names. */
  Contains: 3,
} as const;
export type MatchTier = (typeof MatchTier)[keyof typeof MatchTier];

/**
 * Which type comes first among equally good matches: exchange shares and funds, which most searches are
 * for, then the rest of the market, then the user's own assets.
 */
const TYPE_ORDER: Record<AssetType, number> = { share: 0, etf: 1, bond: 2, future: 3, currency: 4, token: 5, custom_asset: 6 };

/**
 * Text as the search compares it: lower case and `ё` read as `е` (people type either), as the screener's
 * `search_text` column stores it, so the SQL that picks candidates and this ranking agree.
 */
export function normalizeSearchText(text: string): string {
  return text.toLowerCase().replace(/ё/g, 'е');
}

/** The words of a text: runs of letters and digits, in any script. */
export function wordsOf(text: string): string[] {
  return normalizeSearchText(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** How `asset` matches `search` (already trimmed, non-empty), or null when it does not match at all. */
export function matchTier(asset: RankableAsset, search: string): MatchTier | null {
  const q = normalizeSearchText(search.trim());
  if (!q) return MatchTier.Contains;
  const ticker = normalizeSearchText(asset.ticker);
  if (ticker === q || (asset.isin && normalizeSearchText(asset.isin) === q)) return MatchTier.Exact;
  if (ticker.startsWith(q)) return MatchTier.TickerPrefix;
  const queryWords = wordsOf(q);
  const names = [asset.name, asset.shortName ?? '', asset.latinName ?? ''];
  const nameWords = names.flatMap(wordsOf);
  if (queryWords.length > 0 && queryWords.every((qw) => nameWords.some((w) => w.startsWith(qw)))) return MatchTier.NameWords;
  const haystack = [asset.ticker, asset.isin ?? '', ...names].map(normalizeSearchText).join('\n');
  if (haystack.includes(q) || (queryWords.length > 0 && queryWords.every((qw) => haystack.includes(qw)))) return MatchTier.Contains;
  return null;
}

/** Whether a name (full, short or Latin) begins with the search's first word: "Газпром нефть" for "газпром". */
function nameStartsWith(asset: RankableAsset, search: string): boolean {
  const first = wordsOf(search)[0];
  if (!first) return false;
  return [asset.name, asset.shortName ?? '', asset.latinName ?? ''].some((n) => wordsOf(n)[0]?.startsWith(first));
}

/**
 * The assets that match `search`, best first: an exact ticker (or ISIN), then tickers starting with it, then
 * assets whose name words start with every word of it (Latin or Cyrillic, any case, `ё` = `е`), then any other
 * match. Equal matches: a name beginning with the search first, then the shorter ticker, the ticker
 * alphabetically, the type (shares first) and the id, so the order is stable. Without a search every asset
 * matches, in that tie order.
 */
export function rankAssets<T extends RankableAsset>(assets: readonly T[], search: string | undefined): T[] {
  const q = (search ?? '').trim();
  const scored = assets.flatMap((asset) => {
    const tier = matchTier(asset, q);
    return tier === null ? [] : [{ asset, tier, leading: q && tier === MatchTier.NameWords && nameStartsWith(asset, q) ? 0 : 1, ticker: normalizeSearchText(asset.ticker) }];
  });
  scored.sort(
    (a, b) =>
      a.tier - b.tier ||
      a.leading - b.leading ||
      a.ticker.length - b.ticker.length ||
      (a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0) ||
      TYPE_ORDER[a.asset.type] - TYPE_ORDER[b.asset.type] ||
      a.asset.id - b.asset.id,
  );
  return scored.map((s) => s.asset);
}
