import { CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useRef, useState } from 'react';
import { describeError } from '../api/api-error';
import { type Answer, api } from '../api/client';
import { formatCompactMoney, formatDay, formatMoney } from '../format/number-format';
import { useLocale } from '../i18n';
import { useTr } from '../tr';

// Only the pieces a line chart needs: Chart.js tree-shakes the rest away.
Chart.register(LineController, LineElement, PointElement, CategoryScale, LinearScale, Filler, Tooltip, Legend);

type Range = '1M' | '6M' | '1Y' | 'ALL';
type History = Answer<'/api/portfolios/{id}/history', 'get'>;

const RANGES: { range: Range; ru: string; en: string }[] = [
  { range: '1M', ru: '1М', en: '1M' },
  { range: '6M', ru: '6М', en: '6M' },
  { range: '1Y', ru: '1Г', en: '1Y' },
  { range: 'ALL', ru: 'Всё', en: 'All' },
];
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
  const canvas = useRef<HTMLCanvasElement>(null);

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

  const points = history?.data.points ?? [];
  useEffect(() => {
    if (!canvas.current || points.length === 0) return;
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const text = dark ? '#e6e8eb' : '#1b1f24';
    const grid = dark ? 'rgb(255 255 255 / 0.08)' : 'rgb(0 0 0 / 0.06)';
    const narrow = canvas.current.parentElement!.clientWidth < 500;
    const first = points[0]!.date;
    const long = Date.parse(points.at(-1)!.date) - Date.parse(first) > 200 * 86_400_000;
    const tickDate = new Intl.DateTimeFormat(locale, long ? { month: 'short', year: '2-digit', timeZone: 'UTC' } : { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const chart = new Chart(canvas.current, {
      type: 'line',
      data: {
        labels: points.map((p) => p.date),
        datasets: [
          {
            label: locale === 'ru' ? 'Стоимость' : 'Value',
            data: points.map((p) => p.value),
            borderColor: '#2457d6',
            backgroundColor: 'rgb(36 87 214 / 0.12)',
            fill: true,
            borderWidth: 2,
            pointRadius: 0,
            tension: 0,
          },
          {
            label: locale === 'ru' ? 'Вложено' : 'Invested',
            data: points.map((p) => p.invested),
            borderColor: '#f59e0b',
            borderDash: [5, 4],
            borderWidth: 2,
            pointRadius: 0,
            stepped: true,
          },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: {
            ticks: {
              color: text,
              maxTicksLimit: narrow ? 4 : 7,
              maxRotation: 0,
              autoSkip: true,
              // Short dates, so four of them fit under a phone-wide chart: "28 мая" over months, "май 26" over years.
              callback: (_v, i) => tickDate.format(new Date(`${points[i]?.date ?? ''}T00:00:00Z`)),
            },
            grid: { display: false },
          },
          y: { ticks: { color: text, maxTicksLimit: 5, callback: (v) => formatCompactMoney(Number(v), currency, locale) }, grid: { color: grid } },
        },
        plugins: {
          legend: { position: 'top', align: 'start', labels: { color: text, boxWidth: 14 } },
          tooltip: { callbacks: { title: (items) => formatDay(points[items[0]?.dataIndex ?? 0]?.date, locale), label: (c) => ` ${c.dataset.label ?? ''}: ${formatMoney(Number(c.raw), currency, locale)}` } },
        },
      },
    });
    return () => chart.destroy();
  }, [points, currency, locale]);

  const last = points.at(-1);
  return (
    <div className="panel" data-testid="portfolio-history">
      <div className="screen-head">
        <h2>{t('Стоимость во времени', 'Value over time')}</h2>
        <div className="tabs segmented" role="radiogroup" aria-label={t('Период', 'Period')}>
          {RANGES.map((r) => (
            <button
              key={r.range}
              type="button"
              role="radio"
              className="small-button"
              aria-checked={range === r.range}
              data-testid={`history-range-${r.range}`}
              onClick={() => setRange(r.range)}
            >
              {t(r.ru, r.en)}
            </button>
          ))}
        </div>
      </div>
      {error ? (
        <p className="form-error" role="alert" data-testid="history-error">
          {describeError(error, locale)}
        </p>
      ) : null}
      {history && points.length === 0 && <p className="muted">{t('Добавьте сделку, чтобы увидеть график', 'Add a deal to see the chart')}</p>}
      {points.length > 0 && (
        <div style={{ position: 'relative', height: 240 }}>
          <canvas
            ref={canvas}
            data-testid="history-chart"
            role="img"
            aria-label={
              last
                ? `${t('Стоимость', 'Value')} ${formatMoney(last.value, currency, locale)}, ${t('вложено', 'invested')} ${formatMoney(last.invested, currency, locale)} (${formatDay(last.date, locale)})`
                : ''
            }
          />
        </div>
      )}
      {history && !history.meta.complete && (
        <p className="muted small" data-testid="history-incomplete">
          {t('История цен некоторых активов ещё загружается: до неё они учтены по цене покупки.', 'The price history of some assets is still loading: until then they count at cost.')}
        </p>
      )}
    </div>
  );
}
