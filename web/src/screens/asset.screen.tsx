import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { describeError } from '../api/api-error';
import { assetOfPath, type PageAssetType } from '../asset-path';
import { type Answer, api } from '../api/client';
import { assetTypeName } from '../components/asset-picker';
import { DailyMoneyChart, RangeButtons } from '../components/daily-money-chart';
import { Link } from '../components/link';
import { categoryName } from '../format/catalog-names';
import { formatCompactMoney, formatDay, formatMoney, formatNumber, formatPercent } from '../format/number-format';
import { operatorSign } from '../format/price-target';
import { useLocale } from '../i18n';
import { useRoute } from '../router';
import { useSession } from '../session';
import { useTr } from '../tr';

const AlertDialog = lazy(() => import('../components/alert-dialog'));

type Asset = Answer<'/api/public/assets/{type}/{ticker}', 'get'>['data'];
type Closes = Answer<'/api/public/assets/{type}/{ticker}/closes', 'get'>['data'];
type Alert = Answer<'/api/notifications', 'get'>['data'][number];
type Range = '1M' | '6M' | '1Y';

const RANGES: readonly Range[] = ['1M', '6M', '1Y'];

/** One asset: key figures, a price chart, dividends and, for a signed-in user, their position and alerts on it. */
export default function AssetScreen() {
  const t = useTr();
  const locale = useLocale();
  const route = useRoute();
  const ref = assetOfPath(route.path);
  const [asset, setAsset] = useState<Asset | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [alerting, setAlerting] = useState(false);
  const [alertsKey, setAlertsKey] = useState(0);

  useEffect(() => {
    if (!ref) return;
    let cancelled = false;
    setAsset(null);
    setError(null);
    api.get('/api/public/assets/{type}/{ticker}', { path: { type: ref.type, ticker: ref.ticker } }).then(
      (r) => cancelled || setAsset(r.data),
      (err: unknown) => cancelled || setError(err),
    );
    return () => {
      cancelled = true;
    };
  }, [ref?.type, ref?.ticker]);

  useEffect(() => {
    if (asset) document.title = `${asset.ticker} · ${asset.name}`;
  }, [asset]);

  if (error) {
    return (
      <section data-testid="asset-page">
        <p className="form-error" role="alert" data-testid="asset-error">
          {describeError(error, locale)}
        </p>
        <Link to="/">{t('К скринеру', 'Back to the screener')}</Link>
      </section>
    );
  }
  if (!asset) return <p className="loading">{t('Загрузка…', 'Loading…')}</p>;

  const share = asset.share;
  const figures: [string, string, string][] = [
    ['price', t('Цена', 'Price'), formatMoney(asset.current_rate, asset.currency, locale)],
    ['change_24h', t('За 24 ч', '24h'), formatPercent(asset.price_change_percentage_24h, locale)],
    ...(share
      ? ([
          ['dividend_yield', t('Див. доходность', 'Dividend yield'), formatPercent(share.dividend_yield, locale, false)],
          ['market_cap', t('Капитализация', 'Market cap'), formatCompactMoney(share.market_cap, 'RUB', locale)],
          ['volume', t('Объём торгов', 'Volume'), formatCompactMoney(share.trading_volume, asset.currency, locale)],
          ['category', t('Категория', 'Category'), categoryName(locale, share.category)],
        ] as [string, string, string][])
      : []),
    ['isin', 'ISIN', asset.isin ?? '—'],
    ['type', t('Тип', 'Type'), assetTypeName(asset.type, t)],
  ];

  return (
    <section data-testid="asset-page" data-asset-id={asset.id}>
      <div className="screen-head">
        <h1 data-testid="asset-title">
          {asset.ticker} <span className="muted">{asset.name}</span>
        </h1>
        <button type="button" data-testid="asset-notify" onClick={() => setAlerting(true)}>
          {t('Уведомить', 'Notify me')}
        </button>
      </div>
      <div className="panel">
        <div className="metrics" data-testid="asset-figures">
          {figures.map(([key, label, value]) => (
            <div key={key} className="metric" data-testid={`figure-${key}`}>
              <span className="muted small metric-label">{label}</span>
              <b data-testid="figure-value">{value}</b>
            </div>
          ))}
        </div>
      </div>
      <PriceChart type={asset.type as PageAssetType} ticker={asset.ticker} currency={asset.currency} />
      <UserSide asset={asset} alertsKey={alertsKey} />
      <div className="panel" data-testid="asset-dividends">
        <h2>{t('Дивиденды', 'Dividends')}</h2>
        {asset.dividends.length === 0 ? (
          <p className="muted">{t('Дивидендов нет', 'No dividends')}</p>
        ) : (
          // Focusable and named: a phone scrolls the table sideways, with the keyboard too.
          <div className="table-wrap" tabIndex={0} role="region" aria-label={t('Дивиденды', 'Dividends')}>
            <table>
              <thead>
                <tr>
                  <th>{t('Закрытие реестра', 'Record date')}</th>
                  <th>{t('Экс-дата', 'Ex-date')}</th>
                  <th className="num">{t('На акцию', 'Per share')}</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {asset.dividends.map((d) => (
                  <tr key={`${d.record_date} ${d.value}`} data-testid="dividend-row" data-upcoming={d.upcoming ? 'true' : 'false'}>
                    <td>{formatDay(d.record_date, locale)}</td>
                    <td>{formatDay(d.ex_date, locale)}</td>
                    <td className="num">{formatMoney(Number(d.value), d.currency, locale)}</td>
                    <td className="muted small">{d.upcoming ? t('ожидается', 'expected') : t('выплачен', 'paid')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p className="muted small">{t('Экс-дата — рабочий день перед закрытием реестра (T+1): купленные с этого дня акции дивиденд не получат.', 'The ex-date is the weekday before the record date (T+1): shares bought from that day on do not get the dividend.')}</p>
      </div>
      {alerting && (
        <Suspense fallback={null}>
          <AlertDialog
            target={{ kind: 'asset', assetType: asset.type, id: asset.id, label: asset.ticker, currentRate: asset.current_rate }}
            onClose={() => setAlerting(false)}
            onCreated={() => setAlertsKey((k) => k + 1)}
          />
        </Suspense>
      )}
    </section>
  );
}

/** The daily closes over 1M, 6M or 1Y. */
function PriceChart({ type, ticker, currency }: { type: PageAssetType; ticker: string; currency: string }) {
  const t = useTr();
  const locale = useLocale();
  const [range, setRange] = useState<Range>('6M');
  const [closes, setCloses] = useState<Closes | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let cancelled = false;
    api.get('/api/public/assets/{type}/{ticker}/closes', { path: { type, ticker }, query: { range } }).then(
      (r) => {
        if (cancelled) return;
        setCloses(r.data);
        setError(null);
      },
      (err: unknown) => cancelled || setError(err),
    );
    return () => {
      cancelled = true;
    };
  }, [type, ticker, range]);

  const dates = useMemo(() => closes?.dates ?? [], [closes]);
  // Keyed by the locale, not `t` (a new function each render): the chart is built again only when its data change.
  const series = useMemo(() => [{ label: locale === 'ru' ? 'Цена закрытия' : 'Close', data: closes?.closes.map(Number) ?? [], style: 'area' as const }], [closes, locale]);

  return (
    <div className="panel" data-testid="asset-chart-panel" data-range={closes?.range ?? ''} data-points={dates.length}>
      <div className="screen-head">
        <h2>{t('Цена', 'Price')}</h2>
        <RangeButtons ranges={RANGES} value={range} onChange={setRange} testIdPrefix="asset-range-" />
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {describeError(error, locale)}
        </p>
      ) : null}
      {closes && dates.length === 0 && (
        <p className="muted">{closes.backfilling ? t('История цен загружается, загляните позже.', 'The price history is loading; look again later.') : t('Нет цен за этот период', 'No prices in this period')}</p>
      )}
      {dates.length > 0 && (
        <DailyMoneyChart
          dates={dates}
          series={series}
          currency={currency}
          // By the dates shown, not the range asked: a share with two weeks of closes has no months to tell apart.
          longDates={Date.parse(dates.at(-1)!) - Date.parse(dates[0]!) > 200 * 86_400_000}
          testId="asset-chart"
          ariaLabel={`${t('Цена', 'Price')} ${formatMoney(Number(closes!.closes.at(-1)), currency, locale)} (${formatDay(dates.at(-1), locale)})`}
        />
      )}
    </div>
  );
}

/** A signed-in user's position in the asset (all portfolios) and their alerts on it. */
function UserSide({ asset, alertsKey }: { asset: Asset; alertsKey: number }) {
  const t = useTr();
  const locale = useLocale();
  const session = useSession();
  const [held, setHeld] = useState<{ portfolio: string; quantity: number }[] | null>(null);
  const [alerts, setAlerts] = useState<Alert[] | null>(null);

  useEffect(() => {
    if (!session) return;
    let cancelled = false;
    void (async () => {
      const portfolios = (await api.get('/api/portfolios')).data;
      const rows = await Promise.all(
        portfolios.map(async (p) => {
          const h = (await api.get('/api/portfolios/{id}/holdings', { path: { id: p.id } })).data;
          const quantity = h.rows.filter((r) => r.open && r.assetable.type === asset.type && r.assetable.id === asset.id).reduce((sum, r) => sum + r.quantity, 0);
          return { portfolio: p.name, quantity };
        }),
      );
      if (!cancelled) setHeld(rows.filter((r) => r.quantity !== 0));
    })().catch(() => cancelled || setHeld([]));
    return () => {
      cancelled = true;
    };
  }, [session, asset.type, asset.id]);

  useEffect(() => {
    if (!session) return;
    let cancelled = false;
    api.get('/api/notifications', { query: { per_page: '100' } }).then(
      (p) => cancelled || setAlerts(p.data.filter((a) => a.target.type === 'asset' && a.target.asset_type === asset.type && a.target.id === asset.id)),
      () => cancelled || setAlerts([]),
    );
    return () => {
      cancelled = true;
    };
  }, [session, asset.type, asset.id, alertsKey]);

  if (!session) return null;
  const quantity = (held ?? []).reduce((sum, r) => sum + r.quantity, 0);
  return (
    <div className="grid">
      <div className="panel" data-testid="asset-position">
        <h2>{t('Моя позиция', 'My position')}</h2>
        {held === null ? (
          <p className="muted">{t('Загрузка…', 'Loading…')}</p>
        ) : held.length === 0 ? (
          <p className="muted">{t('Нет в ваших портфелях', 'Not in your portfolios')}</p>
        ) : (
          <>
            <p data-testid="asset-position-total">
              <strong>{formatNumber(quantity, locale, 8)}</strong> {t('шт.', 'units')}
              {asset.current_rate !== null && <> · {formatMoney(quantity * asset.current_rate, asset.currency, locale)}</>}
            </p>
            <ul className="list">
              {held.map((r) => (
                <li key={r.portfolio}>
                  <span>{r.portfolio}</span>
                  <span className="muted">{formatNumber(r.quantity, locale, 8)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <div className="panel" data-testid="asset-alerts">
        <h2>{t('Мои уведомления', 'My alerts')}</h2>
        {alerts === null ? (
          <p className="muted">{t('Загрузка…', 'Loading…')}</p>
        ) : alerts.length === 0 ? (
          <p className="muted">{t('Уведомлений на этот актив нет', 'No alerts on this asset')}</p>
        ) : (
          <ul className="list">
            {alerts.map((a) => (
              <li key={a.id} data-testid="asset-alert">
                <span>
                  {a.type === 'price-target'
                    ? `${t('цена', 'price')} ${operatorSign(a.condition.operator)} ${formatNumber(a.condition.value, locale, 8)}`
                    : `|${t('изменение за 24 ч', '24h change')}| ≥ ${formatPercent(a.condition.value, locale, false)}`}
                </span>
                <span className="muted small">{a.is_active ? t('вкл.', 'on') : t('выкл.', 'off')}</span>
              </li>
            ))}
          </ul>
        )}
        <Link to="/notifications">{t('Все уведомления', 'All alerts')}</Link>
      </div>
    </div>
  );
}
