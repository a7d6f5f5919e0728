import { Body, Controller, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  DEAL_IMPORT_MAX_BYTES,
  DEAL_IMPORT_MAX_ROWS,
  DEAL_IMPORT_PREVIEW_PAGE,
  type DealImportPreviewReply,
  type DealImportReply,
  DealImportSubjects,
  type ImportAsset,
  type ImportPreviewRow,
  importDealsRequestSchema,
} from '@invest/contracts';
import { type RpcClient, ServiceError } from '@invest/platform';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { ApiIdParam, ApiOwnedResource } from '../common/resource.openapi.js';
import { localeFromAcceptLanguage } from '../i18n/accept-language.js';
import { localizeRowErrors } from '../i18n/localize-error.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { parseBody } from '../validation/request-input.js';
import { UnreadableWorkbook, workbookText, XLSX_MEDIA_TYPE } from './workbook-text.js';

/** A whole file is read, looked up and checked at once: longer than a single deal may take. */
const IMPORT_TIMEOUT_MS = 60_000;
/** NATS refuses a request over its 1 MB `max_payload`; JSON escaping (quotes, control characters) can grow the file past it. */
const MAX_ENCODED_BYTES = 960 * 1024;
const csvBodySchema = importDealsRequestSchema.pick({ csv: true });

/**
 * `text/csv` bodies as text: UTF-8, or Windows-1251 (what Russian spreadsheets and brokers often save) when the
 * bytes are not UTF-8. Slightly over the file limit, so a larger file gets the 422 that names it, not a bare 413.
 */
export function installCsvBodyParser(app: NestFastifyApplication): void {
  // A workbook is compressed: twice the text limit holds any that unpacks to text within it.
  app.useBodyParser(XLSX_MEDIA_TYPE, { bodyLimit: DEAL_IMPORT_MAX_BYTES * 2 }, (_req, body, done) => {
    void workbookText(Buffer.isBuffer(body) ? body : Buffer.from(String(body))).then((text) => done(null, text));
  });
  app.useBodyParser('text/csv', { bodyLimit: DEAL_IMPORT_MAX_BYTES * 2 }, (_req, body, done) => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(String(body));
    try {
      done(null, new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      done(null, new TextDecoder('windows-1251').decode(bytes));
    }
  });
}

/** The file of a request: a `text/csv` (or `text/plain`) body, an XLSX workbook's first sheet, or JSON `{ "csv": "..." }`. */
function csvOf(body: unknown): string {
  if (body instanceof UnreadableWorkbook) throw ServiceError.validation({ file: [body.message] });
  const { csv } = parseBody(csvBodySchema, typeof body === 'string' ? { csv: body } : body);
  if (Buffer.byteLength(JSON.stringify(csv)) > MAX_ENCODED_BYTES) {
    throw ServiceError.validation({ csv: [`The file must not be larger than ${DEAL_IMPORT_MAX_BYTES / 1024} KB once its quotes are escaped.`] });
  }
  return csv;
}

const FORMAT = `Generic CSV (services/portfolios/README.md, "Importing deals from CSV"): a header row, then one deal a row; columns date, type, ticker (or isin), quantity, price, optional asset_type, isin, commission, currency (English or Russian names, any order); ";" "," or tab separated; decimal point or comma. At most ${DEAL_IMPORT_MAX_ROWS} rows and ${DEAL_IMPORT_MAX_BYTES / 1024} KB. Or T-Bank's broker report (XLSX, its table "1.1 Информация о совершенных и исполненных сделках"). Send the file as the body with Content-Type text/csv (UTF-8 or Windows-1251) or ${XLSX_MEDIA_TYPE} (the first sheet is read), or JSON {"csv": "..."}.`;
const csvBody = {
  description: 'The CSV file.',
  schema: { type: 'string', example: 'date;type;ticker;quantity;price;commission\n2024-01-10;buy;SBER;10;250,5;0,5\n' },
};

/** Deals of one of the user's portfolios from a CSV file: a preview first, then the import. */
export function createDealImportsController({ rpc, auth }: { rpc: RpcClient; auth: JwtAuthGuard }) {
  @ApiTags('portfolios')
  @UseGuards(auth)
  @Controller('api/portfolios/:id/imports')
  class DealImportsController {
    @Post('preview')
    @HttpCode(200)
    @ApiOperation({
      summary: 'Preview a CSV import of deals',
      description: `${FORMAT} Stores nothing. Answers every row: \`status\` new (would be stored), duplicate (imported before) or error (\`errors\`: field, code, message; \`values\`: the cells as written), the deal as read (decimals as decimal text) and the asset found; \`summary\` counts them.`,
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiConsumes('text/csv', XLSX_MEDIA_TYPE, 'application/json')
    @ApiBody(csvBody)
    @ApiOkResponse({ description: '`{ data: { format: generic | tbank, separator, summary: { rows, new, duplicates, errors }, rows: [...], assets: [{ type, id, ticker, name }] } }`' })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio' })
    async preview(@Param('id') id: string, @Body() body: unknown, @Headers('accept-language') lang: unknown): Promise<DealImportPreviewReply> {
      const csv = csvOf(body);
      // A page at a time: all rows at once would be over NATS's 1 MB max_payload.
      const rows: ImportPreviewRow[] = [];
      const assets = new Map<string, ImportAsset>();
      let first: DealImportPreviewReply | undefined;
      for (let offset = 0; first === undefined || offset < first.data.summary.rows; offset += DEAL_IMPORT_PREVIEW_PAGE) {
        const page = await rpc.request<DealImportPreviewReply>(
          DealImportSubjects.preview,
          { portfolio_id: id, csv, offset, limit: DEAL_IMPORT_PREVIEW_PAGE },
          { timeoutMs: IMPORT_TIMEOUT_MS },
        );
        first ??= page;
        rows.push(...page.data.rows);
        for (const a of page.data.assets) assets.set(`${a.type}:${a.id}`, a);
      }
      // Row errors are worded in English by the portfolios service, like error bodies; rendered here in the client's language.
      const locale = localeFromAcceptLanguage(lang, 'en');
      return { data: { format: first.data.format, separator: first.data.separator, summary: first.data.summary, rows: localizeRowErrors(rows, locale), assets: [...assets.values()] } };
    }

    @Post()
    @ApiOperation({
      summary: 'Import deals from a CSV file',
      description: `${FORMAT} Stores the rows a preview calls new, in one transaction, with the rules of a single deal; rows with errors are left out, rows imported before are skipped, so the same file twice adds nothing.`,
    })
    @ApiIdParam('id', 'Portfolio')
    @ApiConsumes('text/csv', XLSX_MEDIA_TYPE, 'application/json')
    @ApiBody(csvBody)
    @ApiCreatedResponse({ description: '`{ data: { created, duplicates, errors, rows } }`' })
    @ApiOwnedResource({ validation: true, notFound: 'The portfolio' })
    @ApiIdempotencyKey()
    async create(@Param('id') id: string, @Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown): Promise<DealImportReply> {
      const opts = idempotencyOptions(key);
      const csv = csvOf(body);
      return rpc.request<DealImportReply>(DealImportSubjects.create, { portfolio_id: id, csv }, { ...opts, timeoutMs: IMPORT_TIMEOUT_MS });
    }
  }
  return DealImportsController;
}
