import type { AssetRef, DealType } from '@invest/contracts';
import type { Decimal } from '@invest/platform';

/** A deal as the domain rules see it (exact decimals as stored, ISO date): what holdings and statistics are computed from. */
export interface DealInput {
  id: number;
  type: DealType;
  asset: AssetRef;
  quantity: Decimal;
  price: Decimal;
  commission: Decimal;
  /** `YYYY-MM-DD` */
  date: string;
}
