/**
 * `npm run bench -- decimal [--deals 10000] [--positions 200] [--seconds 5]`: platform's `Decimal` beside big.js (the
 * baseline, measured in the same run on the same inputs) on what portfolio statistics does with decimals
 * (`portfolios/src/statistics/aggregate-deals.ts`): each deal's quantity, price and commission parsed from the text
 * Postgres writes a `numeric` in (10,000 deals: 30,000 texts), then per position the sums, the products (quantity ×
 * price) and, for each sell, the cost basis it removes (cost basis × quantity / held: a division to 20 places, half
 * away from zero, as `Decimal.div` rounds; big.js is set to the same). Both must give the same totals, checked on
 * every round. Rounds alternate which library goes first; printed are the medians of the timed rounds.
 */
import { createRequire } from 'node:module';
import Big from 'big.js';
import { Decimal, DIVISION_SCALE } from '@invest/platform';
import { parseOptions } from './support/args.js';

const BigDecimal = Big();
BigDecimal.DP = DIVISION_SCALE;
BigDecimal.RM = BigDecimal.roundHalfUp;
const BIG_VERSION = (createRequire(import.meta.url)('big.js/package.json') as { version: string }).version;

interface DealText {
  asset: number;
  sell: boolean;
  quantity: string;
  price: string;
  commission: string;
}

/** A deterministic pseudo-random sequence, so every run has the same deals. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Deals as the statistics read them: prices with 2 places, whole quantities, and every tenth position a coin held
 * in 8-place fractions; a sell never exceeds what is held. Texts as Postgres writes the numeric the deal service
 * stored (the client's canonical text).
 */
function makeDeals(count: number, positions: number): DealText[] {
  const rand = rng(42);
  const heldUnits = new Array<number>(positions).fill(0);
  const deals: DealText[] = [];
  for (let i = 0; i < count; i++) {
    const asset = i % positions;
    const coin = asset % 10 === 9;
    const unit = coin ? 1e8 : 1;
    const sell = heldUnits[asset]! > unit && rand() < 0.25;
    const units = sell ? Math.floor(heldUnits[asset]! / 3) : coin ? 1 + Math.floor(rand() * 2e8) : 1 + Math.floor(rand() * 20);
    heldUnits[asset] = heldUnits[asset]! + (sell ? -units : units);
    const price = Math.round((50 + asset + rand() * 40) * 100) / 100;
    deals.push({ asset, sell, quantity: String(units / unit), price: String(coin ? price * 1000 : price), commission: String(Math.round(rand() * 300) / 100) });
  }
  return deals;
}

/** What both libraries must agree on: the positions' totals, as canonical decimal text. */
type Totals = string;

interface Parsed<T> {
  quantity: T[];
  price: T[];
  commission: T[];
}

function parseDecimal(deals: readonly DealText[]): Parsed<Decimal> {
  const out: Parsed<Decimal> = { quantity: [], price: [], commission: [] };
  for (const d of deals) {
    out.quantity.push(Decimal.of(d.quantity));
    out.price.push(Decimal.of(d.price));
    out.commission.push(Decimal.of(d.commission));
  }
  return out;
}

function parseBig(deals: readonly DealText[]): Parsed<Big.Big> {
  const out: Parsed<Big.Big> = { quantity: [], price: [], commission: [] };
  for (const d of deals) {
    out.quantity.push(new BigDecimal(d.quantity));
    out.price.push(new BigDecimal(d.price));
    out.commission.push(new BigDecimal(d.commission));
  }
  return out;
}

/** applyDeal's arithmetic for buys and sells, per position, and the cash flows' sum. */
function aggregateDecimal(deals: readonly DealText[], v: Parsed<Decimal>, positions: number): Totals {
  const held = new Array<Decimal>(positions).fill(Decimal.ZERO);
  const cost = new Array<Decimal>(positions).fill(Decimal.ZERO);
  let invested = Decimal.ZERO;
  let fixed = Decimal.ZERO;
  let commissions = Decimal.ZERO;
  let flows = Decimal.ZERO;
  for (let i = 0; i < deals.length; i++) {
    const a = deals[i]!.asset;
    const q = v.quantity[i]!;
    const c = v.commission[i]!;
    const amount = q.times(v.price[i]!);
    commissions = commissions.plus(c);
    if (!deals[i]!.sell) {
      held[a] = held[a]!.plus(q);
      cost[a] = cost[a]!.plus(amount);
      invested = invested.plus(amount);
      flows = flows.plus(amount.plus(c).negated());
    } else {
      const h = held[a]!;
      const covered = q.min(h);
      const removed = covered.cmp(h) === 0 ? cost[a]! : cost[a]!.times(covered).div(h);
      fixed = fixed.plus(amount).minus(removed);
      cost[a] = cost[a]!.minus(removed);
      held[a] = h.minus(covered);
      flows = flows.plus(amount.minus(c));
    }
  }
  return [invested, fixed, commissions, flows, Decimal.sum(cost), Decimal.sum(held)].map((x) => x.toString()).join(' ');
}

function aggregateBig(deals: readonly DealText[], v: Parsed<Big.Big>, positions: number): Totals {
  const zero = new BigDecimal(0);
  const held = new Array<Big.Big>(positions).fill(zero);
  const cost = new Array<Big.Big>(positions).fill(zero);
  let invested = zero;
  let fixed = zero;
  let commissions = zero;
  let flows = zero;
  for (let i = 0; i < deals.length; i++) {
    const a = deals[i]!.asset;
    const q = v.quantity[i]!;
    const c = v.commission[i]!;
    const amount = q.times(v.price[i]!);
    commissions = commissions.plus(c);
    if (!deals[i]!.sell) {
      held[a] = held[a]!.plus(q);
      cost[a] = cost[a]!.plus(amount);
      invested = invested.plus(amount);
      flows = flows.plus(amount.plus(c).neg());
    } else {
      const h = held[a]!;
      const covered = q.lt(h) ? q : h;
      const removed = covered.eq(h) ? cost[a]! : cost[a]!.times(covered).div(h);
      fixed = fixed.plus(amount).minus(removed);
      cost[a] = cost[a]!.minus(removed);
      held[a] = h.minus(covered);
      flows = flows.plus(amount.minus(c));
    }
  }
  const sum = (xs: Big.Big[]) => xs.reduce((t, x) => t.plus(x), zero);
  // Plain notation, as Decimal writes it (big.js writes exponents below 1e-7).
  return [invested, fixed, commissions, flows, sum(cost), sum(held)].map((x) => Decimal.of(x.toFixed()).toString()).join(' ');
}

interface Library {
  name: string;
  round(): { parseMs: number; computeMs: number; totals: Totals };
  parse: number[];
  compute: number[];
}

function library<T>(name: string, parse: () => Parsed<T>, aggregate: (v: Parsed<T>) => Totals): Library {
  return {
    name,
    parse: [],
    compute: [],
    round() {
      const t0 = performance.now();
      const v = parse();
      const t1 = performance.now();
      const totals = aggregate(v);
      return { parseMs: t1 - t0, computeMs: performance.now() - t1, totals };
    },
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, { deals: 10_000, positions: 200, seconds: 5 });
  const deals = makeDeals(o.deals, o.positions);
  const baseline = library(`big.js ${BIG_VERSION}`, () => parseBig(deals), (v) => aggregateBig(deals, v, o.positions));
  const platform = library('platform Decimal', () => parseDecimal(deals), (v) => aggregateDecimal(deals, v, o.positions));
  const libraries = [baseline, platform];
  const sells = deals.filter((d) => d.sell).length;
  console.log(`${deals.length} deals (${deals.length * 3} texts to parse, ${sells} sells with a division) over ${o.positions} positions; ~${o.seconds} s per library, in alternating rounds`);

  let expected: Totals | undefined;
  const check = (lib: Library, totals: Totals) => {
    expected ??= totals;
    if (totals !== expected) throw new Error(`${lib.name} disagrees: ${totals} vs ${expected}`);
  };
  // Warm-up: both compiled by the optimiser before any round is timed.
  for (let i = 0; i < 10; i++) for (const lib of libraries) check(lib, lib.round().totals);
  const until = performance.now() + o.seconds * 2 * 1000;
  for (let r = 0; performance.now() < until || r < 20; r++) {
    for (const lib of r % 2 ? [...libraries].reverse() : libraries) {
      const { parseMs, computeMs, totals } = lib.round();
      check(lib, totals);
      lib.parse.push(parseMs);
      lib.compute.push(computeMs);
    }
    // Let a scheduled collection run between rounds rather than inside the next one's timing only.
    await new Promise((resolve) => setImmediate(resolve));
  }

  const pad = (s: string, w: number) => s.padStart(w);
  const base = { parse: median(baseline.parse), compute: median(baseline.compute) };
  console.log(`${'library'.padEnd(18)}${pad('parse ms', 10)}${pad('compute ms', 12)}${pad('total ms', 10)}${pad('rounds', 8)}${pad('vs big.js', 11)}`);
  for (const lib of libraries) {
    const parse = median(lib.parse);
    const compute = median(lib.compute);
    const ratio = (parse + compute) / (base.parse + base.compute);
    console.log(`${lib.name.padEnd(18)}${pad(parse.toFixed(2), 10)}${pad(compute.toFixed(2), 12)}${pad((parse + compute).toFixed(2), 10)}${pad(String(lib.parse.length), 8)}${pad(`${ratio.toFixed(2)}×`, 11)}`);
  }
  console.log(`same totals on every round: ${expected}`);
}
