import { useEffect, useState } from 'react';
import { describeError } from '../api/api-error';
import { type Answer, api } from '../api/client';
import { formatDay, formatMoney, type Locale } from '../format/number-format';
import { useLocale } from '../i18n';
import { useTr } from '../tr';
import { TickerLink } from './ticker-link';

type Dividends = Answer<'/api/portfolios/{id}/dividends', 'get'>;
type Expected = Dividends['data']['expected'][number];

/** The month a record date falls in, as a heading: `июль 2026` / `July 2026`. */
const monthOf = (date: string, locale: Locale) =>
  new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date.slice(0, 7)}-01T00:00:00Z`));

/**
 * Dividends of a portfolio (`GET /api/portfolios/{id}/dividends`): the upcoming ones of the open positions by month,
 * with the amount due on the position, and the income received per year. `changeKey` changes when the deals were reloaded.
 */
export default function PortfolioDividends({ portfolioId, changeKey }: { portfolioId: number; changeKey?: unknown }) {
  const t = useTr();
  const locale = useLocale();
  const [answer, setAnswer] = useState<Dividends | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let cancelled = false;
    api.get('/api/portfolios/{id}/dividends', { path: { id: portfolioId } }).then(
      (r) => cancelled || (setAnswer(r), setError(null)),
      (err: unknown) => cancelled || setError(err),
    );
    return () => {
      cancelled = true;
    };
  }, [portfolioId, changeKey]);

  if (error) {
    return (
      <div className="panel" data-testid="dividends">
        <h2>{t('Дивиденды', 'Dividends')}</h2>
        <p className="form-error" role="alert">
          {describeError(error, locale)}
        </p>
      </div>
    );
  }
  if (!answer) return null;
  const { expected, received_by_year: years } = answer.data;
  const months = new Map<string, Expected[]>();
  for (const d of expected) {
    const key = d.record_date.slice(0, 7);
    months.set(key, [...(months.get(key) ?? []), d]);
  }
  return (
    <div className="panel" data-testid="dividends">
      <h2>{t('Дивиденды', 'Dividends')}</h2>
      <h3>{t('Ожидаемые', 'Upcoming')}</h3>
      {expected.length === 0 ? (
        <p className="muted" data-testid="dividends-none">
          {t('По открытым позициям ближайших дивидендов нет.', 'No upcoming dividends on the open positions.')}
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="dividends-calendar">
            <thead>
              <tr>
                <th>{t('Реестр', 'Record date')}</th>
                <th>{t('Актив, на акцию', 'Asset, per share')}</th>
                <th className="num">{t('Вам', 'Due to you')}</th>
              </tr>
            </thead>
            {[...months].map(([month, rows]) => (
              <tbody key={month} data-testid="dividends-month" data-month={month}>
                <tr>
                  <th colSpan={3} className="muted small" style={{ textAlign: 'left' }}>
                    {monthOf(month, locale)}
                  </th>
                </tr>
                {rows.map((d) => (
                  <tr key={`${d.assetable.type}:${d.assetable.id}:${d.record_date}:${d.per_share}:${d.currency}`} data-testid="dividend-row" data-ticker={d.ticker}>
                    <td data-testid="dividend-date">{formatDay(d.record_date, locale)}</td>
                    <td>
                      <strong>
                        <TickerLink type={d.assetable.type} ticker={d.ticker} testId="dividend-ticker" />
                      </strong>
                      <div className="muted small" data-testid="dividend-per-share">
                        {formatMoney(Number(d.per_share), d.currency, locale)}
                      </div>
                    </td>
                    <td className="num" data-testid="dividend-due">
                      {formatMoney(Number(d.amount), d.currency, locale)}
                    </td>
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </div>
      )}
      <p className="muted small">
        {t(
          '«Вам» — сумма на нынешнее количество бумаг, до налога. Дивиденд получит тот, у кого бумаги есть на дату закрытия реестра.',
          'Amounts are on your current quantity, before tax; you get a dividend if you hold the shares on the record date.',
        )}
      </p>
      <h3>{t('Получено по годам', 'Received per year')}</h3>
      {years.length === 0 ? (
        <p className="muted" data-testid="dividends-received-none">
          {t('Дивидендов и купонов пока не получено.', 'No dividends or coupons received yet.')}
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="dividends-by-year">
            <thead>
              <tr>
                <th>{t('Год', 'Year')}</th>
                <th className="num">{t('Дивиденды и купоны', 'Dividends and coupons')}</th>
              </tr>
            </thead>
            <tbody>
              {years.map((y) => (
                <tr key={y.year} data-testid="dividends-year" data-year={y.year}>
                  <td>{y.year}</td>
                  <td className="num" data-testid="dividends-year-amount">
                    {formatMoney(Number(y.amount), answer.meta.currency, locale)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
