import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { describeError } from '../api/api-error';
import { type Answer, api } from '../api/client';
import { assetPath } from '../asset-path';
import { Link } from '../components/link';
import { formatCompactMoney, formatDateTime, formatMoney, formatPercent } from '../format/number-format';
import { pluralForm, SHARE_FORMS } from '../format/plural';
import { useLocale } from '../i18n';
import { navigate, useRoute } from '../router';
import {
  billionsToRub,
  decodeScreenerState,
  encodeScreenerState,
  normalizeBound,
  pageInRange,
  PER_PAGE_OPTIONS,
  type RangeKey,
  rubToBillions,
  screenerApiQuery,
  type ScreenerState,
  type SortColumn,
  toggleSort,
  withFilter,
} from '../screener/screener-state';
import { useSession } from '../session';
import { useTr } from '../tr';
import { useCatalogNames } from '../catalog-names';

type SharesPage = Answer<'/api/public/shares', 'get'>;
export type ShareRow = SharesPage['data'][number];
type Categories = Answer<'/api/public/shares/categories', 'get'>['data'];
type Countries = Answer<'/api/public/shares/countries', 'get'>['data'];

const AlertDialog = lazy(() => import('../components/alert-dialog'));

/** Categories and countries change rarely: one read per page load. */
let filtersCache: Promise<[Categories, Countries]> | undefined;
function loadFilters(): Promise<[Categories, Countries]> {
  filtersCache ??= Promise.all([api.get('/api/public/shares/categories'), api.get('/api/public/shares/countries')]).then(([c, k]) => [c.data, k.data] as [Categories, Countries]);
  filtersCache.catch(() => (filtersCache = undefined));
  return filtersCache;
}

/**
 * The landing page's rows (and the filter lists) are requested as soon as this module runs, in parallel with
 * React's first render rather than after its effect. Used once, and only if the view still matches.
 */
let prefetched: { key: string; page: Promise<SharesPage> } | undefined;
if (location.pathname === '/') {
  const query = screenerApiQuery(decodeScreenerState(location.search));
  prefetched = { key: JSON.stringify(query), page: api.get('/api/public/shares', { query }) };
  prefetched.page.catch(() => undefined);
  void loadFilters().catch(() => undefined);
}

function sharesPage(query: Record<string, string>, signal: AbortSignal): Promise<SharesPage> {
  const early = prefetched;
  prefetched = undefined;
  return early?.key === JSON.stringify(query) ? early.page : api.get('/api/public/shares', { query, signal });
}

export function ScreenerScreen() {
  const route = useRoute();
  const locale = useLocale();
  const session = useSession();
  const t = useTr();
  const names = useCatalogNames();
  const state = useMemo(() => decodeScreenerState(route.search), [route.search]);
  const [page, setPage] = useState<SharesPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [filters, setFilters] = useState<[Categories, Countries]>([[], []]);
  const [searchText, setSearchText] = useState(state.search ?? '');
  const [alertFor, setAlertFor] = useState<ShareRow | null>(null);
  const [attempt, setAttempt] = useState(0);
  const searchTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const section = useRef<HTMLElement>(null);

  // The table header sticks just below the top bar, whose height depends on the width (it wraps on a phone).
  useEffect(() => {
    const bar = document.querySelector('.topbar');
    const el = section.current;
    if (!bar || !el) return;
    const follow = () => el.style.setProperty('--topbar-height', `${bar.getBoundingClientRect().height}px`);
    follow();
    const watch = new ResizeObserver(follow);
    watch.observe(bar);
    return () => watch.disconnect();
  }, []);

  const go = (next: ScreenerState, replace = false) => navigate(`/${encodeScreenerState(next)}`, { replace });
  // Debounced inputs act on the view as it is when they fire, not as it was when the user started typing.
  const current = useRef(state);
  current.current = state;
  const setBound = (key: RangeKey, value: string) => go(withFilter(current.current, { [key]: value }));

  useEffect(() => {
    loadFilters().then(setFilters, () => undefined);
  }, []);

  // The search box follows the URL (back/forward) unless the user is typing.
  useEffect(() => {
    if (document.activeElement?.getAttribute('data-testid') !== 'screener-search') setSearchText(state.search ?? '');
  }, [state.search]);

  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    sharesPage(screenerApiQuery(state), abort.signal)
      .then((p) => {
        if (abort.signal.aborted) return;
        // A page past the end (an old link, a list that shrank) shows the last page instead of an empty table.
        const last = pageInRange(p.meta, p.data.length);
        if (last !== undefined && last !== state.page) {
          go({ ...state, page: last }, true);
          return;
        }
        setPage(p);
        setError(null);
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted && (err as Error).name !== 'AbortError') setError(err);
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
    return () => abort.abort();
  }, [state, attempt]);

  const onSearch = (text: string) => {
    setSearchText(text);
    clearTimeout(searchTimer.current);
    // Typing replaces the history entry: Back leaves the screener state, not each keystroke.
    searchTimer.current = setTimeout(() => go(withFilter(state, { search: text.trim().slice(0, 100) }), true), 300);
  };

  const asOf = page?.data.reduce<string | null>((max, r) => (max === null || r.updated_at > max ? r.updated_at : max), null) ?? null;
  const meta = page?.meta;

  const sortHeader = (column: SortColumn, label: string) => {
    const activeDir = state.sort === column ? state.direction : undefined;
    return (
      <th className="num" aria-sort={activeDir === 'asc' ? 'ascending' : activeDir === 'desc' ? 'descending' : 'none'}>
        <button type="button" className="sort" data-testid={`sort-${column}`} data-direction={activeDir ?? ''} onClick={() => go(toggleSort(state, column))}>
          {label}
          {/* A no-break space: a wrapped header keeps its arrow beside its last word. */}
          <span aria-hidden="true">{activeDir === 'asc' ? '\u00a0▲' : activeDir === 'desc' ? '\u00a0▼' : '\u00a0↕'}</span>
        </button>
      </th>
    );
  };

  return (
    <section data-testid="screener" ref={section}>
      <div className="screen-head">
        <h1>{t('Скринер акций', 'Share screener')}</h1>
        <span className="muted" data-testid="screener-as-of">
          {asOf ? `${t('Данные на', 'Data as of')} ${formatDateTime(asOf, locale)}` : ''}
        </span>
      </div>
      <form className="filters" role="search" data-testid="screener-filters" onSubmit={(e) => e.preventDefault()}>
        <input
          type="search"
          data-testid="screener-search"
          placeholder={t('Тикер, название или ISIN', 'Ticker, name or ISIN')}
          aria-label={t('Поиск', 'Search')}
          value={searchText}
          maxLength={100}
          onChange={(e) => onSearch(e.target.value)}
        />
        <select data-testid="filter-category" aria-label={t('Категория', 'Category')} value={state.category ?? ''} onChange={(e) => go(withFilter(state, { category: e.target.value }))}>
          <option value="">{t('Все категории', 'All categories')}</option>
          {filters[0].map((c) => (
            <option key={c.id} value={c.slug}>
              {names.category(c)} ({c.shares_count})
            </option>
          ))}
        </select>
        <select data-testid="filter-country" aria-label={t('Страна', 'Country')} value={state.country ?? ''} onChange={(e) => go(withFilter(state, { country: e.target.value }))}>
          <option value="">{t('Все страны', 'All countries')}</option>
          {filters[1].map((c) => (
            <option key={c.code} value={c.code}>
              {countryName(c.code, c.name, locale)} ({c.shares_count})
            </option>
          ))}
        </select>
        <div className="range" role="group" aria-label={t('Дивидендная доходность, %', 'Dividend yield, %')} data-testid="filter-dividend-yield">
          <span className="range-label">{t('Див. доходность, %', 'Div. yield, %')}</span>
          <BoundInput
            testId="filter-yield-min"
            label={t('Дивидендная доходность от, %', 'Dividend yield from, %')}
            placeholder={t('от', 'min')}
            value={state.yieldMin}
            toText={(v) => v ?? ''}
            toApi={(text) => {
              const v = normalizeBound(text);
              return v !== undefined && Number(v) <= 1000 && !(state.yieldMax && Number(v) > Number(state.yieldMax)) ? v : undefined;
            }}
            onCommit={(v) => setBound('yieldMin', v)}
          />
          <span aria-hidden="true">–</span>
          <BoundInput
            testId="filter-yield-max"
            label={t('Дивидендная доходность до, %', 'Dividend yield up to, %')}
            placeholder={t('до', 'max')}
            value={state.yieldMax}
            toText={(v) => v ?? ''}
            toApi={(text) => {
              const v = normalizeBound(text);
              return v !== undefined && Number(v) <= 1000 && !(state.yieldMin && Number(v) < Number(state.yieldMin)) ? v : undefined;
            }}
            onCommit={(v) => setBound('yieldMax', v)}
          />
        </div>
        <div className="range" role="group" aria-label={t('Капитализация, млрд ₽', 'Market cap, billion RUB')} data-testid="filter-market-cap">
          <span className="range-label">{t('Капитализация, млрд ₽', 'Market cap, bn RUB')}</span>
          <BoundInput
            testId="filter-cap-min"
            label={t('Капитализация от, млрд ₽', 'Market cap from, billion RUB')}
            placeholder={t('от', 'min')}
            value={state.capMin}
            toText={rubToBillions}
            toApi={(text) => {
              const v = billionsToRub(text);
              return v !== undefined && !(state.capMax && Number(v) > Number(state.capMax)) ? v : undefined;
            }}
            onCommit={(v) => setBound('capMin', v)}
          />
          <span aria-hidden="true">–</span>
          <BoundInput
            testId="filter-cap-max"
            label={t('Капитализация до, млрд ₽', 'Market cap up to, billion RUB')}
            placeholder={t('до', 'max')}
            value={state.capMax}
            toText={rubToBillions}
            toApi={(text) => {
              const v = billionsToRub(text);
              return v !== undefined && !(state.capMin && Number(v) < Number(state.capMin)) ? v : undefined;
            }}
            onCommit={(v) => setBound('capMax', v)}
          />
        </div>
      </form>
      {error ? (
        <div className="panel error-panel" role="alert" data-testid="screener-error">
          {describeError(error, locale)}{' '}
          <button type="button" data-testid="screener-retry" onClick={() => setAttempt((n) => n + 1)}>
            {t('Повторить', 'Retry')}
          </button>
        </div>
      ) : null}
      <div className="table-wrap screener-wrap" aria-busy={loading}>
        <table className="screener" data-testid="screener-table" data-loading={loading ? 'true' : 'false'}>
          <thead>
            <tr>
              <th className="sticky">{t('Акция', 'Share')}</th>
              <th className="num">{t('Цена', 'Price')}</th>
              {sortHeader('price_change_percentage_24h', t('24\u00a0ч', '24h'))}
              {sortHeader('price_change_percentage_7d', t('7\u00a0дн', '7d'))}
              {sortHeader('dividend_yield', t('Див. доходность', 'Div. yield'))}
              {sortHeader('market_cap', t('Капитализация', 'Market cap'))}
              {sortHeader('trading_volume', t('Объём торгов', 'Volume'))}
              <th>{t('Категория', 'Category')}</th>
              <th>{t('Страна', 'Country')}</th>
              <th aria-label={t('Действия', 'Actions')} />
            </tr>
          </thead>
          <tbody>
            {page?.data.map((r) => (
              <tr key={r.id} data-testid="screener-row" data-ticker={r.asset}>
                <td className="sticky">
                  <strong data-testid="cell-asset">
                    <Link to={assetPath('share', r.asset)}>{r.asset}</Link>
                  </strong>
                  {r.isin ? (
                    <span className="muted small isin wide-only" data-testid="cell-isin">
                      {r.isin}
                    </span>
                  ) : null}
                  <div className="muted small">{r.name}</div>
                </td>
                <td className="num" data-testid="cell-current_rate">
                  {formatMoney(r.current_rate, r.currency, locale)}
                </td>
                <td className={`num ${tone(r.price_change_percentage_24h)}`} data-testid="cell-price_change_percentage_24h">
                  {formatPercent(r.price_change_percentage_24h, locale)}
                </td>
                <td className={`num ${tone(r.price_change_percentage_7d)}`} data-testid="cell-price_change_percentage_7d">
                  {formatPercent(r.price_change_percentage_7d, locale)}
                </td>
                <td className="num" data-testid="cell-dividend_yield">
                  {formatPercent(r.dividend_yield, locale, false)}
                </td>
                <td className="num" data-testid="cell-market_cap">
                  {formatCompactMoney(r.market_cap, 'RUB', locale)}
                </td>
                <td className="num" data-testid="cell-trading_volume">
                  {formatCompactMoney(r.trading_volume, r.currency, locale)}
                </td>
                <td className="wrap" data-testid="cell-category">
                  {names.category(r.category)}
                </td>
                <td className="wrap" data-testid="cell-country">
                  {r.country ? countryName(r.country.code, r.country.name, locale) : '—'}
                </td>
                <td>
                  {session ? (
                    <button type="button" className="small-button" data-testid="row-create-alert" onClick={() => setAlertFor(r)}>
                      {t('Уведомить', 'Alert')}
                    </button>
                  ) : (
                    <Link to="/sign-in" className="small" data-testid="row-sign-in-to-alert" title={t('Войдите, чтобы создать уведомление', 'Sign in to create an alert')}>
                      {t('Уведомить', 'Alert')}
                    </Link>
                  )}
                </td>
              </tr>
            ))}
            {page && page.data.length === 0 && (
              <tr>
                <td colSpan={10} className="empty" data-testid="screener-empty">
                  {t('Ничего не найдено', 'Nothing found')}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {meta && (
        <nav className="pager" data-testid="pager" aria-label={t('Страницы', 'Pages')}>
          <button type="button" data-testid="pager-prev" disabled={meta.current_page <= 1} onClick={() => go({ ...state, page: state.page - 1 })}>
            ← {t('Назад', 'Previous')}
          </button>
          <span data-testid="pager-status">
            {t('Стр.', 'Page')} <span data-testid="pager-current">{meta.current_page}</span> {t('из', 'of')} <span data-testid="pager-last">{meta.last_page}</span> ·{' '}
            <span data-testid="pager-total">{meta.total}</span> <span data-testid="pager-total-word">{pluralForm(locale, meta.total, SHARE_FORMS[locale])}</span>
          </span>
          <button type="button" data-testid="pager-next" disabled={meta.current_page >= meta.last_page} onClick={() => go({ ...state, page: state.page + 1 })}>
            {t('Вперёд', 'Next')} →
          </button>
          <select data-testid="pager-per-page" aria-label={t('Строк на странице', 'Rows per page')} value={state.perPage} onChange={(e) => go(withFilter(state, { perPage: Number(e.target.value) }))}>
            {PER_PAGE_OPTIONS.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </nav>
      )}
      {alertFor && (
        <Suspense fallback={null}>
          <AlertDialog target={{ kind: 'asset', assetType: 'share', id: alertFor.id, label: alertFor.asset, currentRate: alertFor.current_rate }} onClose={() => setAlertFor(null)} />
        </Suspense>
      )}
    </section>
  );
}

/**
 * One bound of a range filter, typed freely: it reaches the view (and the URL) once the text is a bound the filter
 * accepts (`toApi`), after a pause in typing, on Enter or on leaving the field; an empty field clears it. Text that is
 * not a bound (or would invert the range) is marked and never sent, so the API's 422 is not the user's feedback.
 */
function BoundInput(props: {
  testId: string;
  label: string;
  placeholder: string;
  /** The bound in the view, as the API takes it. */
  value: string | undefined;
  toText: (value: string | undefined) => string;
  toApi: (text: string) => string | undefined;
  onCommit: (value: string) => void;
}) {
  const shown = props.toText(props.value);
  const [text, setText] = useState(shown);
  const input = useRef<HTMLInputElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // The field follows the URL (back/forward, another bound's change) unless the user is typing in it.
  useEffect(() => {
    if (document.activeElement !== input.current) setText(shown);
  }, [shown]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const blank = text.trim() === '';
  const valid = blank || props.toApi(text) !== undefined;
  const commit = (now: string) => {
    clearTimeout(timer.current);
    if (now.trim() === '') {
      if (props.value !== undefined) props.onCommit('');
      return;
    }
    const v = props.toApi(now);
    if (v !== undefined && v !== props.value) props.onCommit(v);
  };
  return (
    <input
      ref={input}
      type="text"
      inputMode="decimal"
      className="bound"
      data-testid={props.testId}
      aria-label={props.label}
      aria-invalid={valid ? undefined : true}
      placeholder={props.placeholder}
      value={text}
      maxLength={24}
      onChange={(e) => {
        const next = e.target.value;
        setText(next);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => commit(next), 500);
      }}
      onBlur={() => commit(text)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit(text);
      }}
    />
  );
}

function tone(v: number | null): string {
  return v === null ? '' : v > 0 ? 'up' : v < 0 ? 'down' : '';
}

const regionNames = new Map<string, Intl.DisplayNames | null>();
/** The country's name in the reader's language where the browser knows it; the API's English name otherwise. */
function countryName(code: string, fallback: string, locale: string): string {
  if (!regionNames.has(locale)) {
    try {
      regionNames.set(locale, new Intl.DisplayNames([locale], { type: 'region' }));
    } catch {
      regionNames.set(locale, null);
    }
  }
  try {
    return regionNames.get(locale)?.of(code) ?? fallback;
  } catch {
    return fallback;
  }
}
