import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import writeExcelFile from 'write-excel-file/node';
import { MAX_UNPACKED_BYTES, UnreadableWorkbook, workbookText } from './workbook-text.js';

describe('workbookText', () => {
  it("turns the first sheet into ; text, a line per row: quotes where needed, a cell's line breaks as spaces", async () => {
    const xlsx = await writeExcelFile([
      ['Дата заклю-\nчения', 'Вид; сделки', 'Цена', null, 'Количество'],
      ['10.01.2024', 'Покупка', 250.5, null, 10],
      [null, '"в кавычках"', 0.1 + 0.2, null, 1e-7],
    ]).toBuffer();
    expect(await workbookText(xlsx)).toBe(['Дата заклю- чения;"Вид; сделки";Цена;;Количество', '10.01.2024;Покупка;250.5;;10', ';"""в кавычках""";0.3;;0.0000001'].join('\n'));
  });

  it('refuses a workbook whose parts unpack past the limit, before unpacking any, and bytes that are no workbook', async () => {
    // Zeros pack about 1000 to 1: a body far under the upload limit that would unpack to 40 MB.
    const bomb = Buffer.from(zipSync({ 'xl/worksheets/sheet1.xml': new Uint8Array(MAX_UNPACKED_BYTES + 8 * 1024 * 1024) }, { level: 9 }));
    expect(bomb.length).toBeLessThan(200 * 1024);
    const refused = await workbookText(bomb);
    expect(refused).toBeInstanceOf(UnreadableWorkbook);
    expect((refused as UnreadableWorkbook).message).toBe('The workbook unpacks to more than 32 MB: import the report by period.');
    const garbage = await workbookText(Buffer.from('PK\u0003\u0004 not a workbook'));
    expect((garbage as UnreadableWorkbook).message).toBe('The file is not a readable XLSX workbook.');
  });
});
