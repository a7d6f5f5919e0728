/** Asset types that have a public page (a custom asset is one user's own and has none). */
export type PageAssetType = 'token' | 'share' | 'bond' | 'etf' | 'future' | 'currency';

/** The address of an asset's page: every ticker shown in the app links here. */
export const assetPath = (type: string, ticker: string): string => `/assets/${encodeURIComponent(type)}/${encodeURIComponent(ticker)}`;

/** Where a ticker shown in the app links: its asset page; null for a custom asset (the user's own, no page). */
export const tickerPath = (type: string, ticker: string): string | null => (type === 'custom_asset' ? null : assetPath(type, ticker));

/** `/assets/<type>/<ticker>` → its parts; null for any other path (or a malformed escape). */
export function assetOfPath(path: string): { type: PageAssetType; ticker: string } | null {
  const m = /^\/assets\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (!m) return null;
  try {
    // Not checked here: an unknown type is the API's 404, shown as such.
    return { type: decodeURIComponent(m[1]!) as PageAssetType, ticker: decodeURIComponent(m[2]!) };
  } catch {
    return null;
  }
}
