import { useRef, useState } from 'react';
import { ApiError, apiErrorFrom, describeError } from '../api/api-error';
import { fillPath, newKey, sendRequest } from '../api/client';
import { formatNumber } from '../format/number-format';
import { useLocale } from '../i18n';
import { useTr } from '../tr';
import { showToast } from './toast';

/** The answers of `POST /api/portfolios/{id}/imports[/preview]` (contracts/src/portfolios/deal-imports.contract.ts). */
interface RowError {
  field: string;
  code: string;
  message: string;
}
interface PreviewRow {
  line: number;
  status: 'new' | 'duplicate' | 'error';
  deal: { date: string; type: string; ticker: string | null; isin: string | null; quantity: string; price: string; commission: string } | null;
  asset: { type: string; id: number } | null;
  errors: RowError[];
  values: Record<string, string> | null;
}
interface Preview {
  format: 'generic' | 'tbank';
  summary: { rows: number; new: number; duplicates: number; errors: number };
  rows: PreviewRow[];
  assets: { type: string; id: number; ticker: string; name: string }[];
}
interface Imported {
  created: number;
  duplicates: number;
  errors: number;
  rows: number;
}

/** Rows shown in the preview table: every row with an error first, then the others, up to this many. */
const SHOWN_ROWS = 200;
/** Rows with errors listed above the table. */
const ERRORS_LISTED = 20;

/**
 * A row error as the server words it, in the UI's language (the gateway renders it from Accept-Language,
 * docs/decisions/0035-localized-errors.md). In English the field's name comes first; a Russian message names it itself.
 */
function errorText(e: RowError, locale: 'ru' | 'en'): string {
  return locale === 'en' ? `${e.field}: ${e.message}` : e.message;
}

/** Largest file the gateway takes (DEAL_IMPORT_MAX_BYTES; a compressed XLSX twice that): a larger one is refused before it is sent. */
const MAX_BYTES = 800 * 1024;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const isXlsx = (name: string) => /\.xlsx$/i.test(name);

/** Why a file cannot be read: its 422 on `file` or `csv` (already in the UI's language), else the error as any other. */
function problemText(err: unknown, locale: 'ru' | 'en'): string {
  const messages = err instanceof ApiError ? [...(err.fieldErrors.file ?? []), ...(err.fieldErrors.csv ?? [])] : [];
  return messages.length > 0 ? messages.join(' ') : describeError(err, locale);
}

async function send<T>(portfolioId: number, path: 'imports' | 'imports/preview', file: { name: string; bytes: ArrayBuffer }, key?: string): Promise<T> {
  const url = `${fillPath('/api/portfolios/{id}', { id: portfolioId })}/${path}`;
  const res = await sendRequest(url, {
    method: 'POST',
    body: file.bytes,
    headers: { 'content-type': isXlsx(file.name) ? XLSX : 'text/csv', accept: 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
  });
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) throw apiErrorFrom(res.status, body, res.headers.get('retry-after'));
  return (body as { data: T }).data;
}

/** "Импорт сделок": choose a CSV file or a T-Bank report, see every row as it would be imported (errors per row), then confirm. */
export default function DealImportPanel({ portfolioId, onImported }: { portfolioId: number; onImported: () => void }) {
  const t = useTr();
  const locale = useLocale();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<{ name: string; bytes: ArrayBuffer; key: string } | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const clear = () => {
    setFile(null);
    setPreview(null);
    setError(null);
  };
  const reset = () => {
    clear();
    if (input.current) input.current.value = '';
  };

  const choose = async (chosen: File | undefined) => {
    clear();
    if (!chosen) return;
    setBusy(true);
    try {
      if (chosen.size > (isXlsx(chosen.name) ? 2 * MAX_BYTES : MAX_BYTES)) {
        setError(t('Файл слишком большой: разбейте его на части (отчёт брокера — по периодам).', 'The file is too large: split it (a broker report by period).'));
        return;
      }
      const bytes = await chosen.arrayBuffer();
      // One key per chosen file: a retried confirmation of it imports once.
      setFile({ name: chosen.name, bytes, key: newKey() });
      setPreview(await send<Preview>(portfolioId, 'imports/preview', { name: chosen.name, bytes }));
    } catch (err) {
      setError(problemText(err, locale));
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!file) return;
    setBusy(true);
    try {
      const done = await send<Imported>(portfolioId, 'imports', file, file.key);
      showToast(
        t(
          `Импортировано сделок: ${done.created}. Уже были: ${done.duplicates}. С ошибками: ${done.errors}.`,
          `Deals imported: ${done.created}. Already there: ${done.duplicates}. With errors: ${done.errors}.`,
        ),
        'success',
      );
      reset();
      onImported();
    } catch (err) {
      setError(problemText(err, locale));
    } finally {
      setBusy(false);
    }
  };

  const tickerOf = (r: PreviewRow) => {
    const a = r.asset && preview?.assets.find((x) => x.type === r.asset!.type && x.id === r.asset!.id);
    return a ? a.ticker : (r.deal?.ticker ?? r.deal?.isin ?? r.values?.ticker ?? r.values?.isin ?? '');
  };
  const shown = preview ? [...preview.rows.filter((r) => r.status === 'error'), ...preview.rows.filter((r) => r.status !== 'error')].slice(0, SHOWN_ROWS) : [];
  const errorRows = preview ? preview.rows.filter((r) => r.status === 'error') : [];
  const typeText: Record<string, string> = {
    buy: t('покупка', 'buy'),
    sell: t('продажа', 'sell'),
    dividend: t('дивиденд', 'dividend'),
    coupon: t('купон', 'coupon'),
    fee: t('комиссия', 'fee'),
    tax: t('налог', 'tax'),
  };
  const statusText = { new: t('новая', 'new'), duplicate: t('уже импортирована', 'already imported'), error: t('ошибка', 'error') };

  return (
    <div className="panel" data-testid="deal-import">
      <h2>{t('Импорт сделок', 'Import deals')}</h2>
      <details className="small" style={{ marginBottom: 8 }}>
        <summary>{t('Формат файла', 'File format')}</summary>
        <p className="muted">
          {t(
            'Первая строка — заголовок. Колонки: дата (ГГГГ-ММ-ДД или ДД.ММ.ГГГГ), тип (покупка/продажа/дивиденд или buy/sell/dividend), тикер (или ISIN), количество, цена; по желанию тип актива, комиссия, валюта (валюта портфеля). Разделитель «;» или «,», дробная часть через точку или запятую. До 10 000 строк и 800 КБ. Повторный импорт того же файла ничего не добавит.',
            'The first line is a header. Columns: date (YYYY-MM-DD or DD.MM.YYYY), type (buy/sell/dividend), ticker (or ISIN), quantity, price; optionally asset type, commission, currency (the portfolio’s). Separator ";" or ",", decimal point or comma. Up to 10,000 rows and 800 KB. Importing the same file again adds nothing.',
          )}
        </p>
        <pre className="small">{'date;type;ticker;quantity;price;commission\n2024-01-10;buy;SBER;10;250,5;0,5'}</pre>
        <p className="muted">
          {t(
            'Или брокерский отчёт Т‑Банка в Excel (XLSX) как есть: импортируются исполненные сделки из таблицы 1.1.',
            'Or T-Bank’s broker report in Excel (XLSX) as it is: the executed deals of its table 1.1 are imported.',
          )}
        </p>
      </details>
      <label className="field">
        <span className="field-label">{t('Файл CSV или отчёт Т‑Банка (XLSX)', 'CSV file or T-Bank report (XLSX)')}</span>
        <input ref={input} type="file" accept=".csv,.xlsx,text/csv,text/plain" data-testid="deal-import-file" disabled={busy} onChange={(e) => void choose(e.target.files?.[0])} />
      </label>
      {busy && <p className="muted" data-testid="deal-import-busy">{t('Проверяем файл…', 'Checking the file…')}</p>}
      {error && (
        <p className="form-error" role="alert" data-testid="deal-import-error">
          {error}
        </p>
      )}
      {preview && file && (
        <div data-testid="deal-import-preview">
          <p data-testid="deal-import-summary">
            {preview.format === 'tbank' && t('Отчёт брокера Т‑Банка. ', 'T-Bank broker report. ')}
            {t(
              `Строк: ${preview.summary.rows}. Будет добавлено: ${preview.summary.new}. Уже импортированы: ${preview.summary.duplicates}. С ошибками: ${preview.summary.errors}.`,
              `Rows: ${preview.summary.rows}. To add: ${preview.summary.new}. Already imported: ${preview.summary.duplicates}. With errors: ${preview.summary.errors}.`,
            )}
          </p>
          {errorRows.length > 0 && (
            // Above the table too: on a phone the table's last column is out of sight until scrolled to.
            <ul className="form-error" data-testid="deal-import-errors" style={{ paddingLeft: 18 }}>
              {errorRows.slice(0, ERRORS_LISTED).map((r) => (
                <li key={r.line}>
                  {t(`Строка ${r.line}`, `Line ${r.line}`)}: {r.errors.map((e) => errorText(e, locale)).join('; ')}
                </li>
              ))}
              {errorRows.length > ERRORS_LISTED && <li>{t(`…и ещё ${errorRows.length - ERRORS_LISTED}`, `…and ${errorRows.length - ERRORS_LISTED} more`)}</li>}
            </ul>
          )}
          {/* Focusable and named: a phone scrolls the table sideways, with the keyboard too. */}
          <div className="table-wrap" tabIndex={0} role="region" aria-label={t('Строки файла', 'Rows of the file')}>
            <table data-testid="deal-import-table">
              <thead>
                <tr>
                  <th className="num">{t('Стр.', 'Line')}</th>
                  <th>{t('Дата', 'Date')}</th>
                  <th>{t('Тип', 'Type')}</th>
                  <th>{t('Тикер', 'Ticker')}</th>
                  <th className="num">{t('Кол-во', 'Qty')}</th>
                  <th className="num">{t('Цена', 'Price')}</th>
                  <th className="num">{t('Комиссия', 'Fee')}</th>
                  <th>{t('Итог', 'Result')}</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((r) => (
                  <tr key={r.line} data-testid="deal-import-row" data-status={r.status}>
                    <td className="num">{r.line}</td>
                    <td>{r.deal?.date ?? r.values?.date}</td>
                    <td>{r.deal ? typeText[r.deal.type] : r.values?.type}</td>
                    <td>{tickerOf(r)}</td>
                    <td className="num">{r.deal ? formatNumber(Number(r.deal.quantity), locale, 8) : r.values?.quantity}</td>
                    <td className="num">{r.deal ? formatNumber(Number(r.deal.price), locale, 8) : r.values?.price}</td>
                    <td className="num">{r.deal ? formatNumber(Number(r.deal.commission), locale, 8) : r.values?.commission}</td>
                    <td className={r.status === 'error' ? 'down' : r.status === 'duplicate' ? 'muted' : ''} style={{ whiteSpace: 'normal', minWidth: 180 }}>
                      {r.status === 'error' ? r.errors.map((e) => <div key={`${e.field}-${e.code}`}>{errorText(e, locale)}</div>) : statusText[r.status]}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {preview.rows.length > shown.length && (
            <p className="muted small">{t(`Показаны ${shown.length} строк из ${preview.rows.length}: сначала с ошибками.`, `Showing ${shown.length} of ${preview.rows.length} rows, errors first.`)}</p>
          )}
          <p style={{ display: 'flex', gap: 8, flexWrap: 'wrap' }}>
            <button type="button" data-testid="deal-import-confirm" disabled={busy || preview.summary.new === 0} onClick={() => void confirm()}>
              {t(`Импортировать ${preview.summary.new}`, `Import ${preview.summary.new}`)}
            </button>
            <button type="button" className="secondary" data-testid="deal-import-cancel" disabled={busy} onClick={reset}>
              {t('Отмена', 'Cancel')}
            </button>
          </p>
        </div>
      )}
    </div>
  );
}
