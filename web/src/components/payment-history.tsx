import { useEffect, useState } from 'react';
import { type Answer, api } from '../api/client';
import { useCatalogNames } from '../catalog-names';
import { formatDateTime, formatMoney } from '../format/number-format';
import { useLocale } from '../i18n';
import { useTr } from '../tr';
import { FormError } from './form-bits';

type HistoryPage = Answer<'/api/subscription/payments', 'get'>;
type Charge = HistoryPage['data'][number];

const PER_PAGE = 10;

/**
 * The user's payments (`GET /api/subscription/payments`), newest first, ten at a time with «show more»: date, plan,
 * amount, status (paid, refunded, failed), card and receipt link. `changeKey` changes when the subscription did
 * (a payment, a cancel), so the list is read again.
 */
export function PaymentHistory({ changeKey }: { changeKey?: unknown }) {
  const t = useTr();
  const locale = useLocale();
  const names = useCatalogNames();
  const [rows, setRows] = useState<Charge[] | null>(null);
  const [page, setPage] = useState<HistoryPage['meta'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const load = async (n: number, keep: Charge[]) => {
    setBusy(true);
    try {
      const r = await api.get('/api/subscription/payments', { query: { page: String(n), per_page: String(PER_PAGE) } });
      setRows([...keep, ...r.data]);
      setPage(r.meta);
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    void load(1, []);
  }, [changeKey]);

  const status = (s: Charge['status']) => (s === 'paid' ? t('оплачен', 'paid') : s === 'refunded' ? t('возвращён', 'refunded') : t('не прошёл', 'failed'));

  return (
    <div className="panel" data-testid="payment-history">
      <h2>{t('Платежи', 'Payments')}</h2>
      <FormError error={error} testId="payment-history-error" />
      {rows === null ? (
        !error && <p className="muted">{t('Загружаем платежи…', 'Loading payments…')}</p>
      ) : rows.length === 0 ? (
        <p className="muted" data-testid="payment-history-empty">
          {t('Платежей пока нет.', 'No payments yet.')}
        </p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>{t('Дата', 'Date')}</th>
                <th>{t('Тариф', 'Plan')}</th>
                <th>{t('Сумма', 'Amount')}</th>
                <th>{t('Статус', 'Status')}</th>
                <th>{t('Карта', 'Card')}</th>
                <th>{t('Чек', 'Receipt')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id} data-testid="payment-row" data-status={c.status}>
                  <td>{formatDateTime(c.date, locale)}</td>
                  <td>{c.plan ? names.plan(c.plan) : '—'}</td>
                  <td>{formatMoney(Number(c.amount), c.currency, locale)}</td>
                  <td data-testid="payment-status">{status(c.status)}</td>
                  <td>{c.card_last_four ? `•••• ${c.card_last_four}` : '—'}</td>
                  <td>
                    {c.receipt_url ? (
                      <a href={c.receipt_url} target="_blank" rel="noreferrer">
                        {t('Чек', 'Receipt')}
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && page.current_page < page.last_page && rows && (
        <button type="button" className="secondary" data-testid="payment-history-more" disabled={busy} onClick={() => void load(page.current_page + 1, rows)}>
          {t('Показать ещё', 'Show more')}
        </button>
      )}
    </div>
  );
}
