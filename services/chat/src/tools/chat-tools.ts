import {
  type GetAssetPageReply,
  type GetClosesReply,
  type GetHoldingsReply,
  type GetStatisticsReply,
  type ListPortfoliosReply,
  type NotificationsPage,
  PUBLIC_ASSET_TYPES,
  Subjects,
  unpackCloses,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import { z } from 'zod';
import { filterTicker, promptHealth, promptTotals } from '../providers/portfolio-health.provider.js';

/**
 * The tools the model may call to read the user's data (OpenAI function tools). Each reads through the same NATS
 * RPC the gateway's route for that data calls, as the answering user (`meta.userId`), so the owning service
 * decides what the user may see exactly as it does for the API: another user's portfolio is "not found" here too.
 * Nothing here checks ownership itself; a second check could only disagree with the service's.
 */
export interface ChatTool<Args = unknown> {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as the model sees it. */
  parameters: Record<string, unknown>;
  /** The same rules as code: the model's arguments are parsed with it before anything is asked. */
  args: z.ZodType<Args>;
  /** A short label of one call, listed under the answer as its source. */
  label(args: Args): string;
  /** Reads the data (as `userId`) and returns what the model gets: small, only the fields that answer the call. */
  run(args: Args, ctx: { rpc: RpcClient; userId: string; today: string }): Promise<unknown>;
}

const portfolioId = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{1,15}$/.test(v.trim()) ? Number(v) : v),
  z.number({ error: 'portfolio_id must be a positive integer.' }).int('portfolio_id must be a positive integer.').positive('portfolio_id must be a positive integer.').max(Number.MAX_SAFE_INTEGER),
);
const assetType = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.enum(PUBLIC_ASSET_TYPES, { error: `type must be one of: ${PUBLIC_ASSET_TYPES.join(', ')}.` }),
);
const ticker = z
  .string({ error: 'ticker must be a string.' })
  .trim()
  .min(1, 'ticker is required.')
  .max(32, 'ticker may not be longer than 32 characters.')
  .regex(/^[A-Za-z0-9._-]+$/, 'ticker may hold letters, digits, dot, underscore and dash only.')
  .transform((s) => s.toUpperCase());

const portfolioArgs = z.object({ portfolio_id: portfolioId }).strict();
const assetArgs = z.object({ type: assetType, ticker }).strict();
/** At most a year of closes: a longer series is more than an answer can use and fills the model's context. */
export const MAX_HISTORY_DAYS = 366;
const historyArgs = z
  .object({
    type: assetType,
    ticker,
    days: z.number({ error: 'days must be an integer.' }).int('days must be an integer.').min(1, 'days must be at least 1.').max(MAX_HISTORY_DAYS, `days may not be more than ${MAX_HISTORY_DAYS}.`).default(30),
  })
  .strict();
const noArgs = z.object({}).strict();

/** At most this many rows of a list reach the model (a result says when there were more). */
export const MAX_ROWS = 100;

const portfolioParams = { type: 'object', properties: { portfolio_id: { type: 'integer', description: 'The portfolio id (list_portfolios gives them).' } }, required: ['portfolio_id'], additionalProperties: false };
const assetParams = {
  type: 'object',
  properties: { type: { type: 'string', enum: [...PUBLIC_ASSET_TYPES] }, ticker: { type: 'string', description: 'Exchange ticker, e.g. SBER.' } },
  required: ['type', 'ticker'],
  additionalProperties: false,
};

const isoDaysBefore = (today: string, days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

const listPortfolios: ChatTool<z.infer<typeof noArgs>> = {
  name: 'list_portfolios',
  description: "The user's portfolios: id, name, currency, value, invested, gain.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  args: noArgs,
  label: () => 'Portfolios',
  async run(_args, { rpc, userId }) {
    const reply = await rpc.request<ListPortfoliosReply>(Subjects.portfolios.portfoliosList, {}, { userId });
    return reply.data.slice(0, MAX_ROWS).map((p) => ({ id: p.id, name: p.name, currency: p.currency_code, positions_count: p.positions_count, value: p.value, invested: p.invested, gain: p.gain, gain_percentage: p.gain_percentage }));
  },
};

const getHoldings: ChatTool<z.infer<typeof portfolioArgs>> = {
  name: 'get_holdings',
  description: 'Positions of one of the user\'s portfolios (quantity, average price, current price, value, invested, gain, weight, dividends) and its totals, in the portfolio currency.',
  parameters: portfolioParams,
  args: portfolioArgs,
  label: (a) => `Holdings of portfolio ${a.portfolio_id}`,
  async run(args, { rpc, userId }) {
    const reply = await rpc.request<GetHoldingsReply>(Subjects.portfolios.holdingsGet, { portfolio_id: args.portfolio_id }, { userId });
    const rows = reply.data.rows;
    return {
      positions: rows.slice(0, MAX_ROWS).map((r) => ({
        ticker: r.ticker,
        title: r.title,
        type: r.type,
        open: r.open,
        quantity: r.quantity,
        average_price: r.average_price,
        current_price: r.current_price,
        value: r.value,
        invested: r.invested,
        gain: r.gain,
        gain_percentage: r.gain_percentage,
        weight: r.weight,
        dividends: r.dividends,
      })),
      ...(rows.length > MAX_ROWS ? { positions_omitted: rows.length - MAX_ROWS } : {}),
      totals: reply.data.totals,
    };
  },
};

const getStatistics: ChatTool<z.infer<typeof portfolioArgs>> = {
  name: 'get_portfolio_statistics',
  description: 'Totals (spent, income, XIRR, 24h change, ...) and health metrics (diversification, concentration, asset classes, top positions) of one of the user\'s portfolios, with its positions.',
  parameters: portfolioParams,
  args: portfolioArgs,
  label: (a) => `Statistics of portfolio ${a.portfolio_id}`,
  async run(args, { rpc, userId }) {
    const reply = await rpc.request<GetStatisticsReply>(Subjects.portfolios.statisticsGet, { portfolio_id: args.portfolio_id }, { userId, timeoutMs: 15_000 });
    const s = reply.data;
    // The same fields as the portfolio_health prompt (the spec's ticker fields); the client's metrics are not known here.
    const health = promptHealth(s, { volatility: null, max_drawdown: null });
    return { totals: promptTotals(s), health: { ...health, volatility: undefined, max_drawdown: undefined }, positions: s.tickers.slice(0, MAX_ROWS).map(filterTicker) };
  },
};

const getAsset: ChatTool<z.infer<typeof assetArgs>> = {
  name: 'get_asset',
  description: 'One market asset by type and ticker: its current rate, 24h and 7d change, currency and key figures.',
  parameters: assetParams,
  args: assetArgs,
  label: (a) => `${a.ticker}: rate`,
  async run(args, { rpc, userId }) {
    const a = (await rpc.request<GetAssetPageReply>(Subjects.screener.assetPage, args, { userId })).data;
    return {
      type: a.type,
      ticker: a.ticker,
      name: a.name,
      currency: a.currency,
      current_rate: a.current_rate,
      price_change_percentage_24h: a.price_change_percentage_24h,
      price_change_percentage_7d: a.price_change_percentage_7d,
      rate_updated_at: a.rate_updated_at,
      ...(a.share ? { dividend_yield: a.share.dividend_yield, market_cap: a.share.market_cap, lot_size: a.share.lot_size } : {}),
    };
  },
};

const getDividends: ChatTool<z.infer<typeof assetArgs>> = {
  name: 'get_dividends',
  description: 'Dividends of one market asset (record date, ex-date, value per share, upcoming or paid), newest first.',
  parameters: assetParams,
  args: assetArgs,
  label: (a) => `${a.ticker}: dividends`,
  async run(args, { rpc, userId }) {
    const a = (await rpc.request<GetAssetPageReply>(Subjects.screener.assetPage, args, { userId })).data;
    return { ticker: a.ticker, dividends: a.dividends.slice(0, 20) };
  },
};

const getHistory: ChatTool<z.infer<typeof historyArgs>> = {
  name: 'get_price_history',
  description: 'Daily closes of one market asset over the last `days` days (default 30, at most 366).',
  parameters: {
    type: 'object',
    properties: { ...assetParams.properties, days: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_DAYS } },
    required: ['type', 'ticker'],
    additionalProperties: false,
  },
  args: historyArgs,
  label: (a) => `${a.ticker}: closes, ${a.days} days`,
  async run(args, { rpc, userId, today }) {
    const a = (await rpc.request<GetAssetPageReply>(Subjects.screener.assetPage, { type: args.type, ticker: args.ticker }, { userId })).data;
    const from = isoDaysBefore(today, args.days);
    const closes = await rpc.request<GetClosesReply>(Subjects.screener.closesGet, { refs: [{ type: a.type, id: a.id }], from, to: today }, { userId });
    const series = closes.data[0] ? unpackCloses(closes.data[0]) : { dates: [], closes: [] };
    return { ticker: a.ticker, currency: a.currency, from, to: today, dates: series.dates, closes: series.closes, backfilling: closes.backfilling.length > 0 };
  },
};

const listAlerts: ChatTool<z.infer<typeof noArgs>> = {
  name: 'list_alerts',
  description: "The user's price alerts: target or change threshold, asset, active or not, last fired.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  args: noArgs,
  label: () => 'Alerts',
  async run(_args, { rpc, userId }) {
    const page = await rpc.request<NotificationsPage>(Subjects.alerts.notificationsList, { page: 1, per_page: MAX_ROWS }, { userId });
    return page.data.map((n) => ({
      id: n.id,
      type: n.type,
      name: n.name,
      is_active: n.is_active,
      paused: n.paused,
      condition: n.condition,
      target: n.target ? { type: n.target.type, ticker: n.target.ticker, name: n.target.name, current_rate: n.target.current_rate } : null,
      last_triggered_at: n.last_triggered_at,
    }));
  },
};

/** Every tool, by name. */
export const CHAT_TOOLS: readonly ChatTool<never>[] = [listPortfolios, getHoldings, getStatistics, getAsset, getHistory, getDividends, listAlerts] as ChatTool<never>[];
