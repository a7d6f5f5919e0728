import type { AssetRef, DealType } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/** Which of `fingerprints` the portfolio's deals already carry. */
export async function existingFingerprints(db: SqlClient, portfolioId: number, fingerprints: readonly string[]): Promise<Set<string>> {
  if (fingerprints.length === 0) return new Set();
  const rows = await db.query<{ f: string }>('select import_fingerprint as f from deals where portfolio_id = $1 and import_fingerprint = any($2::text[])', [
    portfolioId,
    fingerprints,
  ]);
  return new Set(rows.map((r) => r.f));
}

/**
 * Inserts the deals in one statement, in the order given (ids follow it); a fingerprint already stored (a
 * concurrent import of the same file) is skipped. Answers how many were inserted.
 */
export async function insertImportedDeals(
  tx: SqlClient,
  portfolioId: number,
  deals: readonly { type: DealType; asset: AssetRef; quantity: string; price: string; commission: string; date: string; fingerprint: string }[],
): Promise<number> {
  if (deals.length === 0) return 0;
  const col = <T>(f: (d: (typeof deals)[number]) => T) => deals.map(f);
  const rows = await tx.query(
    `insert into deals (portfolio_id, asset_type, asset_id, type, quantity, price, commission, date, import_fingerprint)
     select $1, t.asset_type, t.asset_id, t.type, t.quantity, t.price, t.commission, t.date, t.fingerprint
     from unnest($2::text[], $3::bigint[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[], $8::date[], $9::text[])
       with ordinality as t(asset_type, asset_id, type, quantity, price, commission, date, fingerprint, n)
     order by t.n
     on conflict (portfolio_id, import_fingerprint) where import_fingerprint is not null do nothing
     returning 1`,
    [
      portfolioId,
      col((d) => d.asset.type),
      col((d) => d.asset.id),
      col((d) => d.type),
      // Decimal text as parsed: numeric keeps exactly what the file said.
      col((d) => d.quantity),
      col((d) => d.price),
      col((d) => d.commission),
      col((d) => d.date),
      col((d) => d.fingerprint),
    ],
  );
  return rows.length;
}
