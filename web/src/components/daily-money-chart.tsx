import { CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';
import { formatCompactMoney, formatDay, formatMoney } from '../format/number-format';
import { useLocale } from '../i18n';
import { useDarkTheme } from '../theme';
import { useTr } from '../tr';

// Only the pieces a line chart needs: Chart.js tree-shakes the rest away.
Chart.register(LineController, LineElement, PointElement, CategoryScale, LinearScale, Filler, Tooltip, Legend);

/** A line of money by day: the main figure as a filled area, or an amount that changes on some days as dashed steps. */
export interface MoneySeries {
  label: string;
  /** One value per date. */
  data: number[];
  style: 'area' | 'steps';
}

export type ChartRange = '1M' | '6M' | '1Y' | 'ALL';
const RANGE_LABELS: Record<ChartRange, [ru: string, en: string]> = { '1M': ['1М', '1M'], '6M': ['6М', '6M'], '1Y': ['1Г', '1Y'], ALL: ['Всё', 'All'] };

/** The range buttons above a chart by day (a radio group; each button's test id is `<testIdPrefix><range>`). */
export function RangeButtons<R extends ChartRange>({ ranges, value, onChange, testIdPrefix }: { ranges: readonly R[]; value: R; onChange: (r: R) => void; testIdPrefix: string }) {
  const t = useTr();
  return (
    <div className="tabs segmented" role="radiogroup" aria-label={t('Период', 'Period')}>
      {ranges.map((r) => (
        <button key={r} type="button" role="radio" className="small-button" aria-checked={value === r} data-testid={`${testIdPrefix}${r}`} onClick={() => onChange(r)}>
          {t(RANGE_LABELS[r][0], RANGE_LABELS[r][1])}
        </button>
      ))}
    </div>
  );
}

/**
 * Money by day (`dates` as YYYY-MM-DD) as a Chart.js line chart: date ticks short enough for four to fit under a
 * phone-wide chart ("28 мая" within months, "май 26" over `longDates`), compact money on the y axis, and a legend
 * and series names in the tooltip only when there are several series. Built again when its inputs change, so
 * callers keep `dates` and `series` stable between renders (state, or memoised).
 */
export function DailyMoneyChart({
  dates,
  series,
  currency,
  longDates,
  testId,
  ariaLabel,
}: {
  dates: readonly string[];
  series: readonly MoneySeries[];
  currency: string;
  longDates: boolean;
  testId: string;
  ariaLabel: string;
}) {
  const locale = useLocale();
  const canvas = useRef<HTMLCanvasElement>(null);
  const dark = useDarkTheme();
  useEffect(() => {
    if (!canvas.current || dates.length === 0) return;
    const text = dark ? '#e6e8eb' : '#1b1f24';
    const grid = dark ? 'rgb(255 255 255 / 0.08)' : 'rgb(0 0 0 / 0.06)';
    const narrow = canvas.current.parentElement!.clientWidth < 500;
    const tickDate = new Intl.DateTimeFormat(locale, longDates ? { month: 'short', year: '2-digit', timeZone: 'UTC' } : { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const several = series.length > 1;
    const chart = new Chart(canvas.current, {
      type: 'line',
      data: {
        labels: [...dates],
        datasets: series.map((s) =>
          s.style === 'area'
            ? { label: s.label, data: s.data, borderColor: dark ? '#7aa2ff' : '#2457d6', backgroundColor: dark ? 'rgb(122 162 255 / 0.14)' : 'rgb(36 87 214 / 0.12)', fill: true, borderWidth: 2, pointRadius: 0, tension: 0 }
            : { label: s.label, data: s.data, borderColor: '#f59e0b', borderDash: [5, 4], borderWidth: 2, pointRadius: 0, stepped: true },
        ),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: {
            // Russian writes the year as "нояб. 25 г."; without the "г." four ticks fit a phone-wide chart, as in English.
            ticks: { color: text, maxTicksLimit: narrow ? 4 : 7, maxRotation: 0, autoSkip: true, callback: (_v, i) => tickDate.format(new Date(`${dates[i] ?? ''}T00:00:00Z`)).replace(/\s*г\.$/, '') },
            grid: { display: false },
          },
          y: { ticks: { color: text, maxTicksLimit: 5, callback: (v) => formatCompactMoney(Number(v), currency, locale) }, grid: { color: grid } },
        },
        plugins: {
          legend: several ? { position: 'top', align: 'start', labels: { color: text, boxWidth: 14 } } : { display: false },
          tooltip: {
            callbacks: {
              title: (items) => formatDay(dates[items[0]?.dataIndex ?? 0], locale),
              label: (c) => (several ? ` ${c.dataset.label ?? ''}: ` : ' ') + formatMoney(Number(c.raw), currency, locale),
            },
          },
        },
      },
    });
    return () => chart.destroy();
  }, [dates, series, currency, locale, longDates, dark]);
  return (
    <div style={{ position: 'relative', height: 240 }}>
      <canvas ref={canvas} data-testid={testId} role="img" aria-label={ariaLabel} />
    </div>
  );
}
