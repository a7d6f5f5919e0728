/** Columns the screener sorts by, as the API names them (contracts' SHARE_SORT_COLUMNS). */
export const SORT_COLUMNS = ['market_cap', 'price_change_percentage_24h', 'price_change_percentage_7d', 'dividend_yield', 'trading_volume'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
export type Direction = 'asc' | 'desc';

/** Everything that decides what the screener shows; the URL carries it so a link reproduces the view. */
export interface ScreenerState {
  page: number;
  perPage: number;
  sort: SortColumn;
  direction: Direction;
  /** Category slug or id. */
  category?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  search?: string;
  /** Dividend yield bounds, percent, as the API reads them (`5`, `2.5`). */
  yieldMin?: string;
  yieldMax?: string;
  /** Market cap bounds, whole roubles (the screen edits them in billions). */
  capMin?: string;
  capMax?: string;
}

/** The range filters: state key → the API's (and the URL's) parameter. */
export const RANGE_PARAMS = {
  yieldMin: 'dividend_yield_min',
  yieldMax: 'dividend_yield_max',
  capMin: 'market_cap_min',
  capMax: 'market_cap_max',
} as const;
export type RangeKey = keyof typeof RANGE_PARAMS;
const RANGE_KEYS = Object.keys(RANGE_PARAMS) as RangeKey[];

export const DEFAULT_STATE: ScreenerState = { page: 1, perPage: 25, sort: 'market_cap', direction: 'desc' };
const PER_PAGE_CHOICES = [10, 25, 50, 100];
export const PER_PAGE_OPTIONS: readonly number[] = PER_PAGE_CHOICES;
const SEARCH_MAX = 100;

/**
 * A bound as the API accepts it: a non-negative decimal (`,` read as the point), trailing zeros dropped; undefined
 * for anything else (`1e3`, `-1`, empty).
 */
export function normalizeBound(text: string | null | undefined): string | undefined {
  const t = text?.trim().replace(',', '.');
  if (!t || !/^\d{1,20}(\.\d{1,10})?$/.test(t)) return undefined;
  return String(Number(t));
}

/** Billions typed on the screen (`100`, `0,5`) → whole roubles for the API; undefined when not a bound. */
export function billionsToRub(text: string): string | undefined {
  const b = normalizeBound(text);
  if (b === undefined) return undefined;
  const rub = Math.round(Number(b) * 1e9);
  return rub <= 1e15 ? String(rub) : undefined;
}

/** Whole roubles → billions as the screen shows them (`100000000000` → `100`, `500000000` → `0.5`). */
export function rubToBillions(rub: string | undefined): string {
  return rub === undefined ? '' : String(Number(rub) / 1e9);
}

const positiveInt = (v: string | null, max: number): number | undefined => {
  if (v === null || !/^\d{1,9}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= 1 && n <= max ? n : undefined;
};

/**
 * The state a query string describes; anything malformed falls back to its default rather than failing the
 * page (a hand-edited or old link still opens). Parameter names are the API's.
 */
export function decodeScreenerState(query: string | URLSearchParams): ScreenerState {
  const q = typeof query === 'string' ? new URLSearchParams(query) : query;
  const sort = q.get('sort');
  const direction = q.get('direction');
  const category = q.get('category')?.trim().toLowerCase();
  const country = q.get('country_code')?.trim().toUpperCase();
  const search = q.get('search')?.trim().slice(0, SEARCH_MAX);
  const perPage = positiveInt(q.get('per_page'), 100);
  const ranges: Partial<Record<RangeKey, string>> = {};
  for (const k of RANGE_KEYS) {
    const v = normalizeBound(q.get(RANGE_PARAMS[k]));
    if (v !== undefined) ranges[k] = v;
  }
  // An inverted range (a hand-edited link) would be refused by the API: its upper bound goes.
  if (ranges.yieldMin && ranges.yieldMax && Number(ranges.yieldMin) > Number(ranges.yieldMax)) delete ranges.yieldMax;
  if (ranges.capMin && ranges.capMax && Number(ranges.capMin) > Number(ranges.capMax)) delete ranges.capMax;
  return {
    page: positiveInt(q.get('page'), 1_000_000) ?? DEFAULT_STATE.page,
    perPage: perPage && PER_PAGE_CHOICES.includes(perPage) ? perPage : DEFAULT_STATE.perPage,
    sort: (SORT_COLUMNS as readonly string[]).includes(sort ?? '') ? (sort as SortColumn) : DEFAULT_STATE.sort,
    direction: direction === 'asc' || direction === 'desc' ? direction : DEFAULT_STATE.direction,
    ...(category && /^([1-9]\d{0,9}|[a-z][a-z0-9_-]{0,63})$/.test(category) ? { category } : {}),
    ...(country && /^[A-Z]{2}$/.test(country) ? { country } : {}),
    ...(search ? { search } : {}),
    ...ranges,
  };
}

/**
 * Where the screen should be instead when the API answered a page past the end (an old link, a filter that
 * shrank the list): the last page, or undefined when the page shown is fine.
 */
export function pageInRange(meta: { current_page: number; last_page: number }, rowsOnPage: number): number | undefined {
  return rowsOnPage === 0 && meta.current_page > meta.last_page ? meta.last_page : undefined;
}

/** The query string of a state, defaults left out so the plain page is a plain `/`; stable parameter order. */
export function encodeScreenerState(state: ScreenerState): string {
  const q = new URLSearchParams();
  if (state.search) q.set('search', state.search);
  if (state.category) q.set('category', state.category);
  if (state.country) q.set('country_code', state.country);
  for (const k of RANGE_KEYS) if (state[k]) q.set(RANGE_PARAMS[k], state[k]);
  if (state.sort !== DEFAULT_STATE.sort) q.set('sort', state.sort);
  if (state.direction !== DEFAULT_STATE.direction) q.set('direction', state.direction);
  if (state.perPage !== DEFAULT_STATE.perPage) q.set('per_page', String(state.perPage));
  if (state.page !== DEFAULT_STATE.page) q.set('page', String(state.page));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The query of `GET /api/public/shares` for a state (every parameter explicit). */
export function screenerApiQuery(state: ScreenerState): Record<string, string> {
  return {
    page: String(state.page),
    per_page: String(state.perPage),
    sort: state.sort,
    direction: state.direction,
    ...(state.category ? { category: state.category } : {}),
    ...(state.country ? { country_code: state.country } : {}),
    ...(state.search ? { search: state.search } : {}),
    ...Object.fromEntries(RANGE_KEYS.flatMap((k) => (state[k] ? [[RANGE_PARAMS[k], state[k]]] : []))),
  };
}

/** Clicking a sort header: a new column starts descending (largest first), the same column flips. */
export function toggleSort(state: ScreenerState, column: SortColumn): ScreenerState {
  const direction: Direction = state.sort === column ? (state.direction === 'desc' ? 'asc' : 'desc') : 'desc';
  return { ...state, sort: column, direction, page: 1 };
}

/** A filter or search change shows its first page. */
export function withFilter(state: ScreenerState, change: Partial<Pick<ScreenerState, 'category' | 'country' | 'search' | 'perPage' | RangeKey>>): ScreenerState {
  const next: ScreenerState = { ...state, ...change, page: 1 };
  for (const key of ['category', 'country', 'search', ...RANGE_KEYS] as const) if (!next[key]) delete next[key];
  return next;
}
