/**
 * Deals from a CSV file through HTTP: the real gateway, portfolios service and screener (demo data) over real NATS
 * and Postgres. The preview stores nothing; the import stores the new valid rows and the statistics follow; the
 * same file again adds nothing; another user's portfolio is a 404.
 */
import { randomUUID } from 'node:crypto';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tbankReportSheet } from '@invest/portfolios/testing/tbank-report';
import writeExcelFile from 'write-excel-file/node';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'deal-imports-e2e-secret-0123456789-0123456789';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const NOW = new Date('2025-01-01T12:00:00Z');
const tokens: Record<string, string> = {};
let stack: FullStack;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, as: string, body?: { csv?: string; json?: unknown }, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const h: Record<string, string> = { authorization: `Bearer ${tokens[as]}`, ...headers };
  let payload: string | undefined;
  if (body?.csv !== undefined) {
    h['content-type'] = 'text/csv';
    payload = body.csv;
  } else if (body?.json !== undefined) {
    h['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  const res = await fetch(new URL(path, stack.base), { method, headers: h, body: payload });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Semicolons, decimal commas, Russian dates and types; one bad row of each kind. */
const FILE = [
  'Дата;Операция;Тикер;Количество;Цена;Комиссия;Валюта',
  '10.01.2024;Покупка;SBER;10;250,5;0,5;RUB',
  '10.01.2024;Покупка;SBER;10;250,5;0,5;RUB',
  '15.02.2024;Продажа;SBER;5;300;0;RUB',
  '01.03.2024;buy;GAZP;100;160;1;RUB',
  '20.07.2024;Дивиденд;SBER;15;33,3;;RUB',
  '01.08.2024;Продажа;GAZP;500;170;0;RUB',
  '01.08.2024;buy;NOPE;1;1;0;RUB',
  '01.08.2024;buy;LKOH;1;1;0;USD',
  '01.08.2030;buy;LKOH;1;1;0;RUB',
  '32.08.2024;buy;LKOH;1;1;0;RUB',
].join('\r\n');

beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwimp',
    tickers: ['SBER', 'GAZP', 'LKOH'],
    // The deals quota at the file limit: the 10,000-row file fills a portfolio.
    portfolios: { clock: () => NOW, relayPollMs: 100, limits: { dealsPerPortfolio: 10_000 } },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: ['screener', 'portfolios'] },
  });
  tokens.alice = await mintDevToken(`alice-${randomUUID()}`, SECRET);
  tokens.bob = await mintDevToken(`bob-${randomUUID()}`, SECRET);
});

afterAll(() => stack?.close());

describe('CSV import of deals', () => {
  let pid: number;
  beforeAll(async () => {
    const created = await api('POST', '/api/portfolios', 'alice', { json: { name: 'Imported', currency_code: 'RUB' } });
    expect(created.status).toBe(201);
    pid = created.body.data.id;
  });

  it('previews every row with its deal, asset or errors, and stores nothing', async () => {
    const preview = await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { csv: FILE });
    expect(preview.status).toBe(200);
    const { summary, rows, assets, separator } = preview.body.data;
    expect(separator).toBe(';');
    expect(summary).toEqual({ rows: 10, new: 5, duplicates: 0, errors: 5 });
    expect(rows[0]).toMatchObject({
      line: 2,
      status: 'new',
      deal: { date: '2024-01-10', type: 'buy', ticker: 'SBER', quantity: '10', price: '250.5', commission: '0.5', currency: 'RUB' },
      asset: { type: 'share', id: stack.shareIds.SBER },
      errors: [],
      values: null,
    });
    const errorsOf = (line: number) => rows.find((r: { line: number }) => r.line === line).errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`);
    expect(errorsOf(7)).toEqual(['quantity:oversell']);
    expect(errorsOf(8)).toEqual(['ticker:asset_not_found']);
    expect(errorsOf(9)).toEqual(['currency:currency_mismatch']);
    expect(errorsOf(10)).toEqual(['date:future_date']);
    expect(errorsOf(11)).toEqual(['date:invalid_date']);
    expect(rows.find((r: { line: number }) => r.line === 11).values).toMatchObject({ date: '32.08.2024', ticker: 'LKOH' });
    expect(assets.map((a: { ticker: string }) => a.ticker).sort()).toEqual(['GAZP', 'SBER']);

    // Without a language the API's English wording.
    const messageOf = (line: number) => rows.find((r: { line: number }) => r.line === line).errors[0].message;
    expect(messageOf(8)).toBe('No asset NOPE was found.');
    expect(messageOf(9)).toBe("Prices are in the portfolio's currency, RUB; this row is in USD.");

    const portfolio = await api('GET', `/api/portfolios/${pid}`, 'alice');
    expect(portfolio.body.data.deals_count).toBe(0);
  });

  it("words the rows' errors in the client's language (Accept-Language), and nothing else changes", async () => {
    const en = await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { csv: FILE }, { 'accept-language': 'en' });
    const ru = await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { csv: FILE }, { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.8' });
    expect(ru.status).toBe(200);
    const messages = (body: { data: { rows: { line: number; errors: { message: string }[] }[] } }) =>
      Object.fromEntries(body.data.rows.filter((r) => r.errors.length > 0).map((r) => [r.line, r.errors.map((e) => e.message)]));
    expect(messages(en.body)).toEqual({
      7: ['Cannot sell 500: only 100 held on 2024-08-01.'],
      8: ['No asset NOPE was found.'],
      9: ["Prices are in the portfolio's currency, RUB; this row is in USD."],
      10: ['The date must not be in the future.'],
      11: ['The date must be YYYY-MM-DD or DD.MM.YYYY and exist.'],
    });
    expect(messages(ru.body)).toEqual({
      7: ['Нельзя продать 500: на 2024-08-01 в портфеле только 100.'],
      8: ['Актив NOPE не найден.'],
      9: ['Цены указываются в валюте портфеля, RUB; в этой строке — USD.'],
      10: ['Дата не может быть в будущем.'],
      11: ['Дата должна быть в формате ГГГГ-ММ-ДД или ДД.ММ.ГГГГ и существовать.'],
    });
    // Only the messages differ: statuses, fields, codes, deals and assets are the same in both languages.
    const strip = (body: { data: { rows: { errors: { message: string }[] }[] } }) => ({
      ...body.data,
      rows: body.data.rows.map((r) => ({ ...r, errors: r.errors.map((e) => ({ ...e, message: '' })) })),
    });
    expect(strip(ru.body)).toEqual(strip(en.body));
  });

  it('imports the new rows in one go, the statistics follow, and the same file again adds nothing', async () => {
    const first = await api('POST', `/api/portfolios/${pid}/imports`, 'alice', { csv: FILE });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ created: 5, duplicates: 0, errors: 5, rows: 10 });

    const stats = await api('GET', `/api/portfolios/${pid}/statistics`, 'alice');
    expect(stats.status).toBe(200);
    const sber = stats.body.data.tickers.find((t: { ticker: string }) => t.ticker === 'SBER');
    expect(Number(sber.totalQuantity)).toBe(15);
    expect(Number(sber.commissions)).toBe(1);
    expect(Number(sber.accruals)).toBeCloseTo(499.5, 8);
    expect(Number(stats.body.data.tickers.find((t: { ticker: string }) => t.ticker === 'GAZP').totalQuantity)).toBe(100);

    const again = await api('POST', `/api/portfolios/${pid}/imports`, 'alice', { csv: FILE });
    expect(again.status).toBe(201);
    expect(again.body.data).toEqual({ created: 0, duplicates: 5, errors: 5, rows: 10 });
    // The same rows written differently (commas, ISO dates, English types) are the same rows.
    const rewritten = 'date,type,ticker,quantity,price,commission\n2024-01-10,buy,sber,10,250.50,0.50\n';
    expect((await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { json: { csv: rewritten } })).body.data.summary).toEqual({ rows: 1, new: 0, duplicates: 1, errors: 0 });
    expect((await api('GET', `/api/portfolios/${pid}`, 'alice')).body.data.deals_count).toBe(5);
    const deals = await api('GET', `/api/portfolios/${pid}/deals?per_page=100`, 'alice');
    expect(deals.body.data.map((d: { type: string; quantity: number; asset: { ticker: string } }) => `${d.type} ${d.quantity} ${d.asset.ticker}`).sort()).toEqual(
      ['buy 10 SBER', 'buy 10 SBER', 'sell 5 SBER', 'buy 100 GAZP', 'dividend 15 SBER'].sort(),
    );

    // A now-valid row of the file (the buy that covers the oversold GAZP sell is added) is imported on its own.
    const more = `${FILE}\r\n01.07.2024;buy;GAZP;400;150;0;RUB`;
    const third = await api('POST', `/api/portfolios/${pid}/imports`, 'alice', { csv: more });
    expect(third.body.data).toEqual({ created: 2, duplicates: 5, errors: 4, rows: 11 });
  });

  it('honours an Idempotency-Key like other creates', async () => {
    const file = 'date;type;ticker;quantity;price\n2024-05-05;buy;LKOH;1;7000\n';
    const key = { 'idempotency-key': `imp-${randomUUID()}` };
    const a = await api('POST', `/api/portfolios/${pid}/imports`, 'alice', { csv: file }, key);
    const b = await api('POST', `/api/portfolios/${pid}/imports`, 'alice', { csv: file }, key);
    expect(a.body.data).toEqual({ created: 1, duplicates: 0, errors: 0, rows: 1 });
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    const other = await api('POST', `/api/portfolios/${pid}/imports`, 'alice', { csv: `${file}2024-05-06;buy;LKOH;1;7000\n` }, key);
    expect(other.status).toBe(422);
  });

  it("is a 404 on another user's portfolio, and a 422 for a file it cannot read", async () => {
    expect((await api('POST', `/api/portfolios/${pid}/imports/preview`, 'bob', { csv: FILE })).status).toBe(404);
    expect((await api('POST', `/api/portfolios/${pid}/imports`, 'bob', { csv: FILE })).status).toBe(404);
    expect((await api('POST', '/api/portfolios/abc/imports', 'alice', { csv: FILE })).status).toBe(404);
    const noHeader = await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { csv: 'a;b\n1;2\n' });
    expect(noHeader.status).toBe(422);
    expect(Object.keys(noHeader.body.errors)).toEqual(['file']);
    const empty = await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { json: {} });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors)).toEqual(['csv']);
    const tooBig = await api('POST', `/api/portfolios/${pid}/imports/preview`, 'alice', { csv: `date;type;ticker;quantity;price\n${'x'.repeat(900 * 1024)}` });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.errors.csv[0]).toContain('800 KB');
  });

  it('stores a file sent twice at once only once', async () => {
    const created = await api('POST', '/api/portfolios', 'alice', { json: { name: 'Race', currency_code: 'RUB' } });
    const race = created.body.data.id;
    const file = 'date;type;ticker;quantity;price\n2024-01-10;buy;SBER;1;250\n2024-01-10;buy;SBER;1;250\n2024-01-11;sell;SBER;2;260\n';
    const answers = await Promise.all([1, 2, 3].map(() => api('POST', `/api/portfolios/${race}/imports`, 'alice', { csv: file })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(answers.map((a) => a.body.data.created).sort()).toEqual([0, 0, 3]);
    expect((await api('GET', `/api/portfolios/${race}`, 'alice')).body.data.deals_count).toBe(3);
  });

  it('reads a file saved in Windows-1251, as Russian spreadsheets often save it', async () => {
    // Cyrillic А..я is 0xC0..0xFF in Windows-1251; the rest here is ASCII.
    const cp1251 = (text: string) => Buffer.from([...text].map((c) => (c >= 'А' && c <= 'я' ? 0xc0 + c.charCodeAt(0) - 0x410 : c.charCodeAt(0))));
    const bytes = cp1251('Дата;Операция;Тикер;Количество;Цена\n10.01.2024;Покупка;LKOH;1;6500\n');
    const res = await fetch(new URL(`/api/portfolios/${pid}/imports/preview`, stack.base), {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'text/csv' },
      body: bytes,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { summary: unknown; rows: { deal: unknown }[] } };
    expect(body.data.summary).toEqual({ rows: 1, new: 1, duplicates: 0, errors: 0 });
    expect(body.data.rows[0]!.deal).toMatchObject({ date: '2024-01-10', type: 'buy', ticker: 'LKOH', price: '6500' });
  });

  it("imports T-Bank's broker report as its XLSX: the executed deals only, once, with sheet row numbers", async () => {
    const created = await api('POST', '/api/portfolios', 'alice', { json: { name: 'Т-Банк', currency_code: 'RUB' } });
    const tb = created.body.data.id;
    const sheet = tbankReportSheet(
      [
        { date: '10.01.2024', side: 'Покупка', ticker: 'SBER', price: 250.5, quantity: 10, commission: 0.75 },
        { date: '15.02.2024', side: 'Продажа', ticker: 'SBER', price: 300, quantity: 5, commission: 0.45 },
        { date: '16.02.2024', side: 'Покупка', ticker: 'NOPE', price: 1, quantity: 1, commission: 0 },
      ],
      [{ date: '29.03.2024', side: 'Покупка', ticker: 'GAZP', price: 160, quantity: 1, commission: 0 }],
    );
    const xlsx = await writeExcelFile(sheet).toBuffer();
    const send = (path: string, body: Buffer, lang = 'ru') =>
      fetch(new URL(`/api/portfolios/${tb}/${path}`, stack.base), {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': XLSX, 'accept-language': lang },
        body,
      });
    const preview = await send('imports/preview', xlsx);
    expect(preview.status).toBe(200);
    const data = ((await preview.json()) as { data: { format: string; summary: unknown; rows: { line: number; status: string; deal: unknown; errors: { message: string }[] }[] } }).data;
    expect(data.format).toBe('tbank');
    expect(data.summary).toEqual({ rows: 3, new: 2, duplicates: 0, errors: 1 });
    // Rows 6..8 of the sheet: its title, investor, a blank row, the table's title and its header come first.
    expect(data.rows.map((r) => [r.line, r.status])).toEqual([[6, 'new'], [7, 'new'], [8, 'error']]);
    expect(data.rows[0]!.deal).toMatchObject({ date: '2024-01-10', type: 'buy', ticker: 'SBER', quantity: '10', price: '250.5', commission: '0.75', currency: 'RUB' });
    expect(data.rows[2]!.errors[0]!.message).toBe('Актив NOPE не найден.');

    const imported = await send('imports', xlsx);
    expect(imported.status).toBe(201);
    expect(((await imported.json()) as { data: unknown }).data).toMatchObject({ created: 2, duplicates: 0, errors: 1 });
    expect((await api('GET', `/api/portfolios/${tb}`, 'alice')).body.data.deals_count).toBe(2);
    const again = await send('imports', xlsx);
    expect(((await again.json()) as { data: unknown }).data).toMatchObject({ created: 0, duplicates: 2 });

    const broken = await send('imports/preview', Buffer.from('PK\u0003\u0004 not a workbook'));
    expect(broken.status).toBe(422);
    expect(((await broken.json()) as { errors: Record<string, string[]> }).errors.file).toEqual(['Файл не удалось прочитать как книгу Excel (XLSX).']);
  });

  it('previews and imports 10,000 rows, a page at a time over NATS', async () => {
    const created = await api('POST', '/api/portfolios', 'alice', { json: { name: 'Big', currency_code: 'RUB' } });
    const big = created.body.data.id;
    const lines = ['date;type;ticker;isin;asset_type;quantity;price;commission'];
    for (let i = 0; i < 10_000; i++) lines.push(`2024-01-${String(1 + (i % 28)).padStart(2, '0')};buy;SBER;;share;${1 + (i % 7)};${250 + (i % 100)},${i % 10};0,1`);
    const csv = lines.join('\n');
    const preview = await api('POST', `/api/portfolios/${big}/imports/preview`, 'alice', { csv });
    expect(preview.status).toBe(200);
    // Identical rows are distinct deals (each its own occurrence in the file).
    expect(preview.body.data.summary).toEqual({ rows: 10_000, new: 10_000, duplicates: 0, errors: 0 });
    expect(preview.body.data.rows).toHaveLength(10_000);
    expect(preview.body.data.rows[9_999].line).toBe(10_001);
    const imported = await api('POST', `/api/portfolios/${big}/imports`, 'alice', { csv });
    expect(imported.body.data.created).toBe(10_000);
    expect((await api('GET', `/api/portfolios/${big}`, 'alice')).body.data.deals_count).toBe(10_000);
    expect((await api('POST', `/api/portfolios/${big}/imports`, 'alice', { csv })).body.data.created).toBe(0);
    // The quota counts the whole file: one more deal is refused, and nothing of the file is stored.
    const over = await api('POST', `/api/portfolios/${big}/imports`, 'alice', { csv: 'date;type;ticker;quantity;price\n2024-02-01;buy;GAZP;1;1\n2024-02-02;buy;GAZP;1;1\n' });
    expect(over.status).toBe(422);
    expect(over.body.errors.deals[0]).toContain('at most 10000 deals');
    expect((await api('GET', `/api/portfolios/${big}`, 'alice')).body.data.deals_count).toBe(10_000);
  }, 120_000);
});
