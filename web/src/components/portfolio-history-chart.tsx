import { useEffect, useMemo, useState } from 'react';
import { describeError } from '../api/api-error';
import { type Answer, api } from '../api/client';
import { formatDay, formatMoney } from '../format/number-format';
import { useLocale } from '../i18n';
import { useTr } from '../tr';
import { DailyMoneyChart, RangeButtons } from './daily-money-chart';

type Range = '1M' | '6M' | '1Y' | 'ALL';
type History = Answer<'/api/portfolios/{id}/history', 'get'>;

const RANGES: readonly Range[] = ['1M', '6M', '1Y', 'ALL'];
/** While the screener fetches an asset's history the answer is marked incomplete: ask again a few times. */
const RETRY_MS = 4000;
const MAX_RETRIES = 5;

/**
 * The portfolio's value and invested amount by day (`GET /api/portfolios/{id}/history`), with range buttons.
 * `changeKey` changes when the portfolio's deals were reloaded, so a new deal shows at once.
 */
export default function PortfolioHistoryChart({ portfolioId, currency, changeKey }: { portfolioId: number; currency: string; changeKey?: unknown }) {
  const t = useTr();
  const locale = useLocale();
  const [range, setRange] = useState<Range>('1Y');
  const [history, setHistory] = useState<History | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = (attempt: number) => {
      api.get('/api/portfolios/{id}/history', { path: { id: portfolioId }, query: { range } }).then(
        (r) => {
          if (cancelled) return;
          setHistory(r);
          setError(null);
          if (!r.meta.complete && attempt < MAX_RETRIES) timer = setTimeout(() => load(attempt + 1), RETRY_MS);
        },
        (err: unknown) => cancelled || setError(err),
      );
    };
    load(0);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [portfolioId, range, changeKey]);

  const points = useMemo(() => history?.data.points ?? [], [history]);
  const chart = useMemo(
    () => ({
      dates: points.map((p) => p.date),
      series: [
        { label: locale === 'ru' ? 'Стоимость' : 'Value', data: points.map((p) => p.value), style: 'area' as const },
        { label: locale === 'ru' ? 'Вложено' : 'Invested', data: points.map((p) => p.invested), style: 'steps' as const },
      ],
      longDates: points.length > 0 && Date.parse(points.at(-1)!.date) - Date.parse(points[0]!.date) > 200 * 86_400_000,
    }),
    [points, locale],
  );

  const last = points.at(-1);
  return (
    <div className="panel" data-testid="portfolio-history">
      <div className="screen-head">
        <h2>{t('Стоимость во времени', 'Value over time')}</h2>
        <RangeButtons ranges={RANGES} value={range} onChange={setRange} testIdPrefix="history-range-" />
      </div>
      {error ? (
        <p className="form-error" role="alert" data-testid="history-error">
          {describeError(error, locale)}
        </p>
      ) : null}
      {history && points.length === 0 && <p className="muted">{t('Добавьте сделку, чтобы увидеть график', 'Add a deal to see the chart')}</p>}
      {points.length > 0 && (
        <DailyMoneyChart
          {...chart}
          currency={currency}
          testId="history-chart"
          ariaLabel={
            last
              ? `${t('Стоимость', 'Value')} ${formatMoney(last.value, currency, locale)}, ${t('вложено', 'invested')} ${formatMoney(last.invested, currency, locale)} (${formatDay(last.date, locale)})`
              : ''
          }
        />
      )}
      {history && !history.meta.complete && (
        <p className="muted small" data-testid="history-incomplete">
          {t('История цен некоторых активов ещё загружается: до неё они учтены по цене покупки.', 'The price history of some assets is still loading: until then they count at cost.')}
        </p>
      )}
    </div>
  );
}
