import { lazy, memo, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { describeError, inputError } from '../api/api-error';
import { type Answer, api, newKey } from '../api/client';
import { AssetPicker, assetTypeName, type FoundAsset } from '../components/asset-picker';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field, FormError } from '../components/form-bits';
import { Hint } from '../components/hint';
import { Link } from '../components/link';
import { RequireSession } from '../components/require-session';
import { TickerLink } from '../components/ticker-link';
import { showToast } from '../components/toast';
import { formatDay, formatMoney, formatNumber, formatPercent, type Locale } from '../format/number-format';
import { apiDecimal, decimalInputText, parseDecimalFields } from '../format/number-input';
import { useDecimalField } from '../format/use-decimal-field';
import { useLocale } from '../i18n';
import { navigate, useRoute } from '../router';
import { useTr } from '../tr';
import { FIGURE_HINTS, type FigureHint } from './portfolio-figures';

type PortfolioItem = Answer<'/api/portfolios', 'get'>['data'][number];
type Portfolio = Answer<'/api/portfolios/{id}', 'get'>['data'];
type Deal = Answer<'/api/portfolios/{id}/deals', 'get'>['data'][number];
type Statistics = NonNullable<Answer<'/api/portfolios/{id}/statistics', 'get'>['data']>;
type Holdings = Answer<'/api/portfolios/{id}/holdings', 'get'>['data'];
type HoldingRow = Holdings['rows'][number];
const CURRENCIES = ['RUB', 'USD', 'EUR', 'CNY', 'GBP', 'CHF', 'JPY', 'HKD', 'KZT', 'TRY', 'AED', 'USDT'] as const;
type Currency = (typeof CURRENCIES)[number];
type DealType = Deal['type'];

// The chart library is only fetched when a portfolio's statistics are shown.
const AllocationChart = lazy(() => import('../components/allocation-chart'));
const PortfolioHistoryChart = lazy(() => import('../components/portfolio-history-chart'));
const PortfolioDividends = lazy(() => import('../components/portfolio-dividends'));
const AlertDialog = lazy(() => import('../components/alert-dialog'));
const DealImportPanel = lazy(() => import('../components/deal-import-panel'));

export default function PortfoliosScreen() {
  const route = useRoute();
  const id = /^\/portfolios\/(\d+)$/.exec(route.path)?.[1];
  return <RequireSession>{id ? <PortfolioDetail id={Number(id)} /> : <PortfolioList />}</RequireSession>;
}

function PortfolioList() {
  const t = useTr();
  const locale = useLocale();
  const [list, setList] = useState<PortfolioItem[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState<Currency>('RUB');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // One key per intended portfolio: a double submit or a retry after a timeout creates it once.
  const key = useRef(newKey());

  const load = useCallback(() => {
    api.get('/api/portfolios').then((r) => setList(r.data), setLoadError);
  }, []);
  useEffect(load, [load]);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.post('/api/portfolios', { body: { name: name.trim(), currency_code: currency }, idempotencyKey: key.current });
      key.current = newKey();
      setName('');
      showToast(t(`Портфель «${data.name}» создан`, `Portfolio "${data.name}" created`), 'success');
      load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section data-testid="portfolios">
      <h1>{t('Портфели', 'Portfolios')}</h1>
      {loadError ? (
        <p className="form-error" role="alert">
          {describeError(loadError, locale)}
        </p>
      ) : null}
      <div className="grid">
        <div className="panel">
          <ul className="list" data-testid="portfolio-list">
            {list?.map((p) => (
              <li key={p.id} data-testid="portfolio-item" data-portfolio-id={p.id}>
                <Link to={`/portfolios/${p.id}`} data-testid="portfolio-link">
                  {p.name}
                </Link>
                <span className="muted small">
                  {p.currency_code} · {p.positions_count} {t('поз.', 'positions')} · {p.deals_count} {t('сделок', 'deals')}
                </span>
                <span className="portfolio-figures small">
                  <span data-testid="portfolio-value" title={hint('value', locale)}>
                    {t('Стоимость', 'Value')} <b>{formatMoney(p.value, p.currency_code, locale)}</b>
                  </span>
                  <span data-testid="portfolio-gain" title={hint('gain', locale)} className={tone(p.gain)}>
                    {t('Прибыль', 'Gain')} <b>{signedMoney(p.gain, p.currency_code, locale)}</b> ({formatPercent(p.gain_percentage, locale)})
                  </span>
                </span>
              </li>
            ))}
            {list?.length === 0 && <li className="muted">{t('Портфелей пока нет', 'No portfolios yet')}</li>}
          </ul>
        </div>
        <form
          className="panel"
          data-testid="portfolio-form"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <h2>{t('Новый портфель', 'New portfolio')}</h2>
          <Field label={t('Название', 'Name')} name="name" error={error}>
            <input data-testid="portfolio-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
          </Field>
          <Field label={t('Валюта', 'Currency')} name="currency_code" error={error}>
            <select data-testid="portfolio-currency" value={currency} onChange={(e) => setCurrency(e.target.value as Currency)}>
              {CURRENCIES.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </Field>
          <FormError error={error} fields={['name', 'currency_code']} />
          <button type="submit" data-testid="portfolio-submit" disabled={busy}>
            {t('Создать', 'Create')}
          </button>
        </form>
      </div>
    </section>
  );
}

function PortfolioDetail({ id }: { id: number }) {
  const t = useTr();
  const locale = useLocale();
  const [portfolio, setPortfolio] = useState<Portfolio | null>(null);
  const [deals, setDeals] = useState<Deal[]>([]);
  const [stats, setStats] = useState<Statistics | null>(null);
  const [holdings, setHoldings] = useState<Holdings | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [alertOpen, setAlertOpen] = useState(false);
  // What the confirm dialog asks to delete: a deal, or the portfolio itself.
  const [deleting, setDeleting] = useState<Deal | 'portfolio' | null>(null);

  const load = useCallback(() => {
    api.get('/api/portfolios/{id}', { path: { id } }).then((r) => setPortfolio(r.data), setError);
    api.get('/api/portfolios/{id}/deals', { path: { id }, query: { per_page: '100' } }).then((r) => setDeals(r.data), setError);
    api.get('/api/portfolios/{id}/statistics', { path: { id } }).then((r) => setStats(r.data ?? null), setError);
    api.get('/api/portfolios/{id}/holdings', { path: { id } }).then((r) => setHoldings(r.data), setError);
  }, [id]);
  useEffect(load, [load]);
  // The charts and dividends (three more chunks, a chart library, a canvas each) start once the holdings have been
  // drawn or have failed: on a large portfolio they otherwise took the main thread while the table was awaited.
  const holdingsSettled = holdings !== null || error !== null;
  const [extrasShown, setExtrasShown] = useState(false);
  useEffect(() => {
    if (holdingsSettled) setExtrasShown(true);
  }, [holdingsSettled]);
  // One array per statistics answer: a new one each render redrew the doughnut on every answer that arrived.
  const slices = useMemo(
    () => [...(stats?.tickers ?? [])].sort((a, b) => b.weight - a.weight).filter((x) => x.weight > 0).map((x) => ({ label: x.ticker, weight: x.weight })),
    [stats],
  );

  const removeDeal = async (dealId: number) => {
    await api.delete('/api/portfolios/{id}/deals/{dealId}', { path: { id, dealId } });
    load();
  };
  const removePortfolio = async () => {
    await api.delete('/api/portfolios/{id}', { path: { id } });
    showToast(t(`Портфель «${portfolio?.name ?? id}» удалён`, `Portfolio "${portfolio?.name ?? id}" deleted`), 'success');
    navigate('/portfolios');
  };

  const currency = stats?.totals.currency ?? portfolio?.currency_code ?? 'RUB';
  const totals = stats?.totals;
  const health = stats?.health;
  const sums = holdings?.totals;
  return (
    <section data-testid="portfolio-detail">
      <p>
        <Link to="/portfolios">← {t('Все портфели', 'All portfolios')}</Link>
      </p>
      <div className="screen-head">
        <h1 data-testid="portfolio-title">{portfolio?.name ?? '…'}</h1>
        <button type="button" className="small-button" data-testid="portfolio-create-alert" onClick={() => setAlertOpen(true)} disabled={!portfolio}>
          {t('Уведомить об изменении', 'Change alert')}
        </button>
        <button type="button" className="small-button secondary" data-testid="portfolio-chat" onClick={() => navigate(`/chat?portfolio=${id}`)}>
          {t('Спросить о здоровье портфеля', 'Ask about portfolio health')}
        </button>
        <button type="button" className="small-button secondary" data-testid="portfolio-delete" onClick={() => setDeleting('portfolio')} disabled={!portfolio}>
          {t('Удалить портфель', 'Delete portfolio')}
        </button>
      </div>
      {error ? (
        <p className="form-error" role="alert" data-testid="portfolio-error">
          {describeError(error, locale)}
        </p>
      ) : null}
      {totals && health && sums && (
        <div className="panel" data-testid="portfolio-statistics">
          <h2>{t('Статистика', 'Statistics')}</h2>
          {/* Money figures come from the holdings totals: one definition each, as in the table and the list. */}
          <div className="metrics">
            <Metric label={t('Стоимость', 'Value')} hint="value" value={formatMoney(sums.value, currency, locale)} id="networth" />
            <Metric label={t('Вложено', 'Invested')} hint="invested" value={formatMoney(sums.invested, currency, locale)} id="invested" />
            <Metric
              label={t('Прибыль', 'Gain')}
              hint="gain"
              value={`${signedMoney(sums.gain, currency, locale)} (${formatPercent(sums.gain_percentage, locale)})`}
              tone={tone(sums.gain)}
              id="gain"
            />
            <Metric
              label={t('За 24 ч', '24h')}
              hint="day_change"
              value={`${signedMoney(sums.day_change, currency, locale)} (${formatPercent(sums.day_change_percentage, locale)})`}
              tone={tone(sums.day_change)}
              id="change24h"
            />
            <Metric label={t('Дивиденды', 'Dividends')} hint="dividends" value={formatMoney(sums.dividends, currency, locale)} id="dividends" />
            <Metric label={t('Реализовано', 'Realised')} hint="realised" value={signedMoney(sums.realised, currency, locale)} tone={tone(sums.realised)} id="realised" />
            <Metric label={t('Итоговый результат', 'Total result')} hint="result" value={signedMoney(sums.result, currency, locale)} tone={tone(sums.result)} id="result" />
            <Metric label="XIRR" hint="xirr" value={totals.xirr === null ? '—' : formatPercent(totals.xirr * 100, locale)} id="xirr" />
            <Metric
              label={t('Диверсификация', 'Diversification')}
              hint="diversification"
              value={health.diversificationScore === null ? '—' : `${formatNumber(health.diversificationScore, locale, 0)} / 100`}
              id="diversification"
            />
            <Metric
              label={t('Концентрация', 'Concentration')}
              hint="concentration"
              value={health.concentrationScore === null ? '—' : `${formatNumber(health.concentrationScore, locale, 0)} / 100`}
              id="concentration"
            />
            <Metric
              label={t('Эффективных позиций', 'Effective positions')}
              hint="effective_positions"
              value={health.effectivePositions === null ? '—' : formatNumber(health.effectivePositions, locale, 1)}
              id="effective-positions"
            />
            <Metric label={t('Крупнейшая позиция', 'Largest position')} hint="largest_position" value={formatPercent(health.largestPositionWeight, locale, false)} id="largest-position" />
          </div>
          {extrasShown && stats.tickers.length > 0 && (
            <Suspense fallback={<p className="loading">{t('Загрузка графика…', 'Loading chart…')}</p>}>
              <h2 style={{ marginTop: 16 }}>{t('Распределение', 'Allocation')}</h2>
              <AllocationChart slices={slices} />
            </Suspense>
          )}
        </div>
      )}
      <Suspense fallback={null}>{extrasShown && deals.length > 0 && <PortfolioHistoryChart portfolioId={id} currency={currency} changeKey={deals} />}</Suspense>
      {holdings && holdings.rows.length > 0 && <HoldingsTable holdings={holdings} />}
      <Suspense fallback={null}>{extrasShown && deals.length > 0 && <PortfolioDividends portfolioId={id} changeKey={deals} />}</Suspense>
      <div className="grid">
        <div className="panel">
          <h2>{t('Сделки', 'Deals')}</h2>
          <DealList deals={deals} onDelete={setDeleting} />
        </div>
        <DealForm portfolioId={id} onSaved={load} />
      </div>
      <Suspense fallback={null}>{portfolio && <DealImportPanel portfolioId={id} onImported={load} />}</Suspense>
      {alertOpen && portfolio && (
        <Suspense fallback={null}>
          <AlertDialog target={{ kind: 'portfolio', id, label: portfolio.name }} onClose={() => setAlertOpen(false)} />
        </Suspense>
      )}
      {totals && <p className="muted small">{`${t('Оценка на', 'Valued as of')} ${formatDay(totals.valuationDate, locale)}`}</p>}
      {deleting === 'portfolio' && portfolio && (
        <ConfirmDialog
          title={t('Удаление портфеля', 'Deleting the portfolio')}
          message={
            portfolio.deals_count > 0
              ? t(
                  `Удалить портфель «${portfolio.name}»? Сделки в нём (${portfolio.deals_count}) тоже будут удалены, уведомления на него выключатся.`,
                  `Delete the portfolio "${portfolio.name}"? Its deals (${portfolio.deals_count}) are deleted too, and alerts on it are switched off.`,
                )
              : t(`Удалить портфель «${portfolio.name}»? Уведомления на него выключатся.`, `Delete the portfolio "${portfolio.name}"? Alerts on it are switched off.`)
          }
          confirmLabel={t('Удалить', 'Delete')}
          onConfirm={removePortfolio}
          onClose={() => setDeleting(null)}
        />
      )}
      {deleting !== null && deleting !== 'portfolio' && (
        <ConfirmDialog
          title={t('Удаление сделки', 'Deleting the deal')}
          message={t(`Удалить сделку «${dealLabel(deleting, t, locale)}»? Позиции и статистика портфеля пересчитаются.`, `Delete the deal "${dealLabel(deleting, t, locale)}"? The portfolio's holdings and statistics are recalculated.`)}
          confirmLabel={t('Удалить', 'Delete')}
          onConfirm={() => removeDeal(deleting.id)}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}

function hint(figure: FigureHint, locale: string): string {
  const [ru, en] = FIGURE_HINTS[figure];
  return locale === 'ru' ? ru : en;
}

/** 'up' / 'down' for a signed figure's colour. */
function tone(v: number | null | undefined): string {
  return v === null || v === undefined || v === 0 ? '' : v > 0 ? 'up' : 'down';
}

/** An amount with a plus sign when positive: a gain or a change. */
function signedMoney(v: number | null | undefined, currency: string, locale: 'ru' | 'en'): string {
  const text = formatMoney(v, currency, locale);
  return v !== null && v !== undefined && v > 0 ? `+${text}` : text;
}

function Metric({ label, value, id, hint: figure, tone: toneClass }: { label: string; value: string; id: string; hint: FigureHint; tone?: string }) {
  const locale = useLocale();
  return (
    <div className="metric" data-testid={`metric-${id}`}>
      <span className="muted small metric-label">
        {label}
        <Hint text={hint(figure, locale)} testId={`hint-${id}`} />
      </span>
      <b className={toneClass} data-testid="metric-value">
        {value}
      </b>
    </div>
  );
}

type SortKey = 'ticker' | 'quantity' | 'average_price' | 'current_price' | 'value' | 'gain' | 'gain_percentage' | 'day_change' | 'weight' | 'dividends';

/**
 * Open positions, sortable by any column (largest value first by default); closed ones folded below. Memoised, as
 * its rows are: the page's other answers arriving do not redraw 200 rows, and a sort only moves them.
 */
const HoldingsTable = memo(function HoldingsTable({ holdings }: { holdings: Holdings }) {
  const t = useTr();
  const locale = useLocale();
  const [sort, setSort] = useState<{ key: SortKey; direction: 'asc' | 'desc' }>({ key: 'value', direction: 'desc' });
  const currency = holdings.totals.currency;
  const money = (r: HoldingRow) => r.currency ?? currency;
  const open = useMemo(
    () =>
      sortRows(
        holdings.rows.filter((r) => r.open),
        sort.key,
        sort.direction,
      ),
    [holdings, sort],
  );
  const closed = holdings.rows.filter((r) => !r.open);
  const header = (key: SortKey, label: string, figure?: FigureHint, className = 'num') => (
    <th className={className} aria-sort={sort.key === key ? (sort.direction === 'asc' ? 'ascending' : 'descending') : undefined}>
      <button
        type="button"
        className="sort"
        data-testid={`holdings-sort-${key}`}
        data-direction={sort.key === key ? sort.direction : undefined}
        onClick={() => setSort((s) => ({ key, direction: s.key === key ? (s.direction === 'desc' ? 'asc' : 'desc') : key === 'ticker' ? 'asc' : 'desc' }))}
      >
        {label}
        {sort.key === key ? (sort.direction === 'desc' ? ' ↓' : ' ↑') : ''}
      </button>
      {figure && <Hint text={hint(figure, locale)} testId={`hint-col-${key}`} />}
    </th>
  );
  return (
    <div className="panel" data-testid="holdings">
      <h2>{t('Позиции', 'Holdings')}</h2>
      <div className="table-wrap">
        <table className="holdings" data-testid="holdings-table">
          <thead>
            <tr>
              {header('ticker', t('Актив', 'Asset'), undefined, 'sticky')}
              {/* Value and gain first: at phone width they are what shows beside the asset before the box scrolls. */}
              {header('value', t('Стоимость', 'Value'), 'value')}
              {header('gain', t('Прибыль', 'Gain'), 'gain')}
              {header('day_change', t('За 24 ч', '24h'), 'day_change')}
              {header('weight', t('Доля', 'Weight'), 'weight')}
              {header('quantity', t('Кол-во', 'Qty'), 'quantity')}
              {header('average_price', t('Ср. цена', 'Avg price'), 'average_price')}
              {header('current_price', t('Цена', 'Price'), 'current_price')}
              {header('dividends', t('Дивиденды', 'Dividends'), 'dividends')}
            </tr>
          </thead>
          <tbody>
            {open.map((r) => (
              <HoldingRowView key={`${r.assetable.type}:${r.assetable.id}`} row={r} currency={money(r)} locale={locale} />
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="holdings-total">
              <td className="sticky">{t('Итого', 'Total')}</td>
              <td className="num" data-testid="total-value">
                {formatMoney(holdings.totals.value, currency, locale)}
              </td>
              <td className={`num ${tone(holdings.totals.gain)}`} data-testid="total-gain">
                {signedMoney(holdings.totals.gain, currency, locale)}
                <div className="small">{formatPercent(holdings.totals.gain_percentage, locale)}</div>
              </td>
              <td className={`num ${tone(holdings.totals.day_change)}`} data-testid="total-day_change">
                {signedMoney(holdings.totals.day_change, currency, locale)}
                <div className="small">{formatPercent(holdings.totals.day_change_percentage, locale)}</div>
              </td>
              <td />
              <td />
              <td />
              <td />
              <td className="num" data-testid="total-dividends">
                {formatMoney(holdings.totals.dividends, currency, locale)}
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      {closed.length > 0 && (
        <details className="closed-positions" data-testid="closed-positions">
          <summary>
            {t('Закрытые позиции', 'Closed positions')}: {closed.length}
          </summary>
          <div className="table-wrap">
            <table className="holdings">
              <thead>
                <tr>
                  <th className="sticky">{t('Актив', 'Asset')}</th>
                  <th className="num">
                    {t('Реализовано', 'Realised')}
                    <Hint text={hint('realised', locale)} />
                  </th>
                  <th className="num">
                    {t('Дивиденды', 'Dividends')}
                    <Hint text={hint('dividends', locale)} />
                  </th>
                  <th className="num">{t('Сделок', 'Deals')}</th>
                </tr>
              </thead>
              <tbody>
                {closed.map((r) => (
                  <tr key={`${r.assetable.type}:${r.assetable.id}`} data-testid="closed-row" data-ticker={r.ticker}>
                    <td className="sticky">
                      <strong>
                        <TickerLink type={r.type} ticker={r.ticker} />
                      </strong>
                      <div className="muted small">{r.title}</div>
                    </td>
                    <td className={`num ${tone(r.realised)}`} data-testid="cell-realised">
                      {signedMoney(r.realised, money(r), locale)}
                    </td>
                    <td className="num" data-testid="cell-dividends">
                      {formatMoney(r.dividends, money(r), locale)}
                    </td>
                    <td className="num">{r.deals_count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </div>
  );
});

/** One open position's row; memoised, so a re-sort moves rows without formatting their cells again. */
const HoldingRowView = memo(function HoldingRowView({ row, currency, locale }: { row: HoldingRow; currency: string; locale: Locale }) {
  return (
    <tr data-testid="holding-row" data-ticker={row.ticker}>
      <td className="sticky">
        <strong>
          <TickerLink type={row.type} ticker={row.ticker} />
        </strong>
        <div className="muted small">{row.title}</div>
      </td>
      <td className="num" data-testid="cell-value">
        {formatMoney(row.value, currency, locale)}
      </td>
      <td className={`num ${tone(row.gain)}`} data-testid="cell-gain">
        {signedMoney(row.gain, currency, locale)}
        <div className="small">{formatPercent(row.gain_percentage, locale)}</div>
      </td>
      <td className={`num ${tone(row.day_change)}`} data-testid="cell-day_change">
        {signedMoney(row.day_change, currency, locale)}
        <div className="small">{formatPercent(row.day_change_percentage, locale)}</div>
      </td>
      <td className="num" data-testid="cell-weight">
        {formatPercent(row.weight, locale, false)}
      </td>
      <td className="num" data-testid="cell-quantity">
        {formatNumber(row.quantity, locale, 8)}
      </td>
      <td className="num" data-testid="cell-average_price">
        {formatMoney(row.average_price, currency, locale)}
      </td>
      <td className="num" data-testid="cell-current_price">
        {formatMoney(row.current_price, currency, locale)}
      </td>
      <td className="num" data-testid="cell-dividends">
        {formatMoney(row.dividends, currency, locale)}
      </td>
    </tr>
  );
});

/** Rows in the chosen order; unknown figures (an unpriced position's value) always last; ties by ticker. */
function sortRows(rows: HoldingRow[], key: SortKey, direction: 'asc' | 'desc'): HoldingRow[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (key === 'ticker') return sign * a.ticker.localeCompare(b.ticker);
    const x = a[key];
    const y = b[key];
    if (x === null || y === null) return x === y ? a.ticker.localeCompare(b.ticker) : x === null ? 1 : -1;
    return sign * (x - y) || a.ticker.localeCompare(b.ticker);
  });
}

/** How a deal is named where it is shown and where its delete is confirmed. */
function dealLabel(d: Deal, t: (ru: string, en: string) => string, locale: Locale): string {
  return `${dealTypeName(d.type, t)} ${d.asset?.ticker ?? `${d.assetable.type} ${d.assetable.id}`}, ${formatNumber(d.quantity, locale, 8)} × ${formatNumber(d.price, locale, 8)}, ${formatDay(d.date, locale)}`;
}

/** The deals, each with its delete button; memoised, so the page's other answers arriving do not redraw them. */
const DealList = memo(function DealList({ deals, onDelete }: { deals: Deal[]; onDelete: (d: Deal) => void }) {
  const t = useTr();
  const locale = useLocale();
  return (
    <ul className="list" data-testid="deal-list">
      {deals.map((d) => (
        <li key={d.id} data-testid="deal-item" data-deal-id={d.id}>
          <span>
            {formatDay(d.date, locale)} · {dealTypeName(d.type, t)}{' '}
            <strong>{d.asset ? <TickerLink type={d.asset.type} ticker={d.asset.ticker} testId="deal-ticker" /> : `${d.assetable.type} ${d.assetable.id}`}</strong>{' '}
            {formatNumber(d.quantity, locale, 8)} × {formatNumber(d.price, locale, 8)}
          </span>
          <button
            type="button"
            className="linklike small"
            data-testid="deal-delete"
            aria-label={`${t('Удалить сделку', 'Delete the deal')}: ${dealLabel(d, t, locale)}`}
            onClick={() => onDelete(d)}
          >
            {t('удалить', 'delete')}
          </button>
        </li>
      ))}
      {deals.length === 0 && <li className="muted">{t('Сделок пока нет', 'No deals yet')}</li>}
    </ul>
  );
});

function dealTypeName(type: DealType, t: (ru: string, en: string) => string): string {
  const names: Record<DealType, [string, string]> = {
    buy: ['покупка', 'buy'],
    sell: ['продажа', 'sell'],
    dividend: ['дивиденд', 'dividend'],
    coupon: ['купон', 'coupon'],
    fee: ['комиссия', 'fee'],
    tax: ['налог', 'tax'],
  };
  return t(...names[type]);
}

/** A deal on an asset of any type found by ticker, name or ISIN (the asset search). */
function DealForm({ portfolioId, onSaved }: { portfolioId: number; onSaved: () => void }) {
  const t = useTr();
  const locale = useLocale();
  const [type, setType] = useState<DealType>('buy');
  const [asset, setAsset] = useState<FoundAsset | null>(null);
  // A new picker (empty field) after each saved deal.
  const [pickerKey, setPickerKey] = useState(0);
  const [quantity, setQuantity] = useDecimalField('1');
  const [price, setPrice] = useDecimalField('');
  // The price last filled in from a picked asset's rate: picking another asset may replace it, never a typed one.
  const suggestedPrice = useRef<string | null>(null);
  const [commission, setCommission] = useDecimalField('0');
  const [date, setDate] = useState(localToday);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const key = useRef(newKey());

  const submit = async () => {
    setError(null);
    if (!asset) return setError(inputError({ assetable: [t('Выберите актив из списка.', 'Pick an asset from the list.')] }));
    // Read by the locale and sent as decimal text: never through a double, which keeps ~15 significant digits.
    const numbers = parseDecimalFields({ quantity, price, commission: commission.trim() || '0' }, locale);
    if (!numbers.ok) return setError(inputError(numbers.errors));
    setBusy(true);
    try {
      const { quantity: q, price: p, commission: c } = numbers.texts;
      await api.post('/api/portfolios/{id}/deals', {
        path: { id: portfolioId },
        body: { type, assetable: { type: asset.type, id: asset.id }, quantity: apiDecimal(q), price: apiDecimal(p), commission: apiDecimal(c), date },
        idempotencyKey: key.current,
      });
      key.current = newKey();
      setAsset(null);
      setPickerKey((k) => k + 1);
      // The next deal's price comes with its asset (or is typed).
      setPrice('');
      suggestedPrice.current = null;
      // The next deal starts at today again (the form stays open across days).
      setDate(localToday());
      onSaved();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="panel"
      data-testid="deal-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2>{t('Новая сделка', 'New deal')}</h2>
      <Field label={t('Тип', 'Type')} name="type" error={error}>
        <select data-testid="deal-type" value={type} onChange={(e) => setType(e.target.value as DealType)}>
          {(['buy', 'sell', 'dividend', 'fee', 'tax'] as const).map((d) => (
            <option key={d} value={d}>
              {dealTypeName(d, t)}
            </option>
          ))}
        </select>
      </Field>
      <Field label={t('Актив: тикер, название или ISIN', 'Asset: ticker, name or ISIN')} name="assetable" error={error}>
        <AssetPicker
          key={pickerKey}
          testId="deal-asset"
          value={asset}
          onChange={(a) => {
            setAsset(a);
            // A suggestion for an empty field (or one still holding the previous suggestion) only: a price the user
            // typed keeps its digits.
            if (a?.current_rate != null && (price.trim() === '' || price === suggestedPrice.current)) {
              suggestedPrice.current = decimalInputText(a.current_rate, locale);
              setPrice(suggestedPrice.current);
            }
          }}
        />
        {asset && (
          <span className="muted small" data-testid="deal-asset-picked" data-type={asset.type}>
            {asset.name} · {assetTypeName(asset.type, t)} · {asset.currency}
          </span>
        )}
      </Field>
      <Field label={t('Количество', 'Quantity')} name="quantity" error={error}>
        <input data-testid="deal-quantity" inputMode="decimal" value={quantity} onChange={(e) => setQuantity(e.target.value)} />
      </Field>
      <Field label={t('Цена', 'Price')} name="price" error={error}>
        <input data-testid="deal-price" inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} />
      </Field>
      <Field label={t('Комиссия', 'Commission')} name="commission" error={error}>
        <input data-testid="deal-commission" inputMode="decimal" value={commission} onChange={(e) => setCommission(e.target.value)} />
      </Field>
      <Field label={t('Дата', 'Date')} name="date" error={error}>
        <input data-testid="deal-date" type="date" value={date} onChange={(e) => setDate(e.target.value)} />
      </Field>
      <FormError error={error} fields={['type', 'assetable', 'quantity', 'price', 'commission', 'date']} />
      <button type="submit" data-testid="deal-submit" disabled={busy}>
        {t('Добавить', 'Add')}
      </button>
    </form>
  );
}

/** Today on the user's own calendar (toISOString would give the UTC date, yesterday just after midnight in Moscow). */
function localToday(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
