import { unzipSync } from 'fflate';
import readXlsxFile from 'read-excel-file/node';

/** The media type of an `.xlsx` file, as browsers send it. */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Most bytes a workbook's parts may unpack to, as its ZIP directory declares them. The body limit bounds the
 * packed file only: deflate packs a run of zeros about 1000 to 1, so a small body could unpack to gigabytes.
 * A real 4,000-deal report unpacks to a few MB.
 */
export const MAX_UNPACKED_BYTES = 32 * 1024 * 1024;

/** A body the import cannot read as a workbook; answered with a 422 on `file` saying why. */
export class UnreadableWorkbook {
  constructor(readonly message = 'The file is not a readable XLSX workbook.') {}
}

/** The unpacked size the ZIP's directory declares for all its parts (nothing is unpacked); throws when it is no ZIP. */
function declaredUnpackedBytes(bytes: Buffer): number {
  let total = 0;
  unzipSync(bytes, {
    filter: (file) => {
      total += file.originalSize;
      return false;
    },
  });
  return total;
}

type Cell = string | number | boolean | Date | null;

/** A cell as a spreadsheet shows it: dates as `YYYY-MM-DD`, numbers without exponents or binary noise. */
function cellText(value: Cell): string {
  if (value === null) return '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
  if (typeof value === 'number') {
    // 15 significant digits is what a spreadsheet keeps; it drops the float noise of `0.1 + 0.2`-like values.
    const text = String(Number(value.toPrecision(15)));
    return /e/i.test(text) ? value.toFixed(10).replace(/\.?0+$/, '') : text;
  }
  return String(value);
}

/** Line breaks inside a cell become spaces, so each line of the text is the sheet's row of that number. */
function csvCell(cell: string): string {
  const text = cell.replace(/\r\n|\r|\n/g, ' ');
  return /[;"]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The first sheet of an XLSX workbook as `;`-separated text (RFC 4180 quotes), so a broker's report and a
 * spreadsheet saved as XLSX go through the import's one reader (the portfolios service finds the layout).
 */
export async function workbookText(bytes: Buffer): Promise<string | UnreadableWorkbook> {
  try {
    if (declaredUnpackedBytes(bytes) > MAX_UNPACKED_BYTES) return new UnreadableWorkbook('The workbook unpacks to more than 32 MB: import the report by period.');
    const [sheet] = await readXlsxFile(bytes);
    if (!sheet) return new UnreadableWorkbook();
    return sheet.data.map((row) => (row as Cell[]).map((c) => csvCell(cellText(c))).join(';')).join('\n');
  } catch {
    return new UnreadableWorkbook();
  }
}
