import { z } from 'zod';
import type { AssetRef, AssetType } from '../common/assets.js';
import type { DealType } from './deals.contract.js';
import { resourceIdSchema } from './common.js';

/** Request/reply subjects of CSV deal imports; every request acts for `meta.userId`, on the user's own portfolio. */
export const DealImportSubjects = {
  preview: 'portfolios.deal-imports.preview',
  create: 'portfolios.deal-imports.create',
} as const;

/** Most data rows (after the header, blank lines not counted) one CSV import takes. */
export const DEAL_IMPORT_MAX_ROWS = 10_000;
/**
 * Largest CSV file (bytes). The file crosses NATS inside one request, under the server's 1 MB `max_payload`:
 * 800 KB leaves room for JSON escaping and the envelope, and holds 10,000 rows of up to 80 bytes.
 */
export const DEAL_IMPORT_MAX_BYTES = 800 * 1024;
/** Rows of one `portfolios.deal-imports.preview` answer (a page stays well under 1 MB; the gateway joins the pages). */
export const DEAL_IMPORT_PREVIEW_PAGE = 2_000;

const csvSchema = z
  .string({ error: 'The file must be CSV text.' })
  .refine((s) => new TextEncoder().encode(s).length <= DEAL_IMPORT_MAX_BYTES, `The file must not be larger than ${DEAL_IMPORT_MAX_BYTES / 1024} KB.`);

/** `portfolios.deal-imports.preview`: what importing `csv` would do, rows `offset`..`offset + limit`; stores nothing. */
export const previewDealImportRequestSchema = z.object({
  portfolio_id: resourceIdSchema,
  csv: csvSchema,
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(DEAL_IMPORT_PREVIEW_PAGE).default(DEAL_IMPORT_PREVIEW_PAGE),
});
export type PreviewDealImportRequest = z.infer<typeof previewDealImportRequestSchema>;

/** `portfolios.deal-imports.create`: stores the new valid rows of `csv` in one transaction. */
export const importDealsRequestSchema = z.object({ portfolio_id: resourceIdSchema, csv: csvSchema });
export type ImportDealsRequest = z.infer<typeof importDealsRequestSchema>;

/**
 * A problem of one row: the column (`date`, `type`, `ticker`, `asset_type`, `isin`, `quantity`, `price`,
 * `commission`, `currency`, or `row`), a stable `code` a client translates, and an English `message`.
 */
export interface ImportRowError {
  field: string;
  code: ImportErrorCode;
  message: string;
}
export type ImportErrorCode =
  | 'required'
  | 'columns'
  | 'invalid_date'
  | 'future_date'
  | 'invalid_type'
  | 'invalid_asset_type'
  | 'invalid_number'
  | 'invalid_currency'
  | 'currency_mismatch'
  | 'asset_not_found'
  | 'asset_ambiguous'
  | 'oversell';

/** A row read from the file, in canonical form (decimals as decimal text, date `YYYY-MM-DD`). */
export interface ImportedDealFields {
  date: string;
  type: DealType;
  ticker: string | null;
  isin: string | null;
  asset_type: AssetType | null;
  quantity: string;
  price: string;
  commission: string;
  currency: string | null;
}

/** `new`: would be stored; `duplicate`: this row of this file was imported before; `error`: see `errors`. */
export type ImportRowStatus = 'new' | 'duplicate' | 'error';

export interface ImportPreviewRow {
  /** Line of the file where the row starts (the header is line 1). */
  line: number;
  status: ImportRowStatus;
  /** The row as read; null when a field could not be read (see `errors`). */
  deal: ImportedDealFields | null;
  /** The asset the row names, once found. */
  asset: AssetRef | null;
  errors: ImportRowError[];
  /** The cells as written, for rows with errors only. */
  values: Record<string, string> | null;
}

export interface ImportAsset {
  type: AssetType;
  id: number;
  ticker: string;
  name: string;
}

export interface ImportSummary {
  rows: number;
  new: number;
  duplicates: number;
  errors: number;
}

export interface DealImportPreviewReply {
  data: {
    /** `generic`: the documented CSV; `tbank`: T-Bank's broker report (its deals table). */
    format: 'generic' | 'tbank';
    /** `;`, `,` or a tab, as found in the header. */
    separator: string;
    summary: ImportSummary;
    /** The asked page of rows. */
    rows: ImportPreviewRow[];
    /** The assets the page's rows name. */
    assets: ImportAsset[];
  };
}

export interface DealImportReply {
  data: { created: number; duplicates: number; errors: number; rows: number };
}
