import type { AssetRef, DealType } from '@invest/contracts';

/** A deal as the domain rules see it (plain numbers, ISO date): what holdings and statistics are computed from. */
export interface DealInput {
  id: number;
  type: DealType;
  asset: AssetRef;
  quantity: number;
  price: number;
  commission: number;
  /** `YYYY-MM-DD` */
  date: string;
}
