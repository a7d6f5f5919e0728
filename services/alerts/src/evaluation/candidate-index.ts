import { NotificationTypeIds, PRICE_CHANGE_THRESHOLDS } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import type { NotificationState, RateView } from './evaluation.types.js';

/** `Entries.flags` bits. */
const DEAD = 1;
const TARGET = 2;
const UP = 4;

/**
 * The index's entries, one slot each, in typed arrays: no object per entry for every full collection to mark
 * (a million entries as objects, with their lists and the id map pointing at them, were ~90 ms of a full
 * collection's CPU and ~85 MB of heap; see docs/decisions/0025-alerts-candidate-index.md). An entry is enough to say whether a rate
 * can fire its notification. Lists hold slots.
 *
 * A removed entry is marked dead and its slot stays taken while its list still holds it: the list drops it
 * and gives the slot back when it is next tidied (every read of a list tidies it first), so a slot is never
 * in two lists, and a list never reads another entry's numbers through a slot it held.
 */
class Entries {
  id = new Float64Array(1024);
  // The doubles nearest the exact thresholds: a correctly rounded parse is monotonic (≤ is kept), so still a superset.
  value = new Float64Array(1024);
  initial = new Float64Array(1024);
  /** last_triggered_at in ms, or -Infinity. */
  lastMs = new Float64Array(1024);
  /** cooldown_minutes in ms (0: none; price-targets have none); never changes after creation. */
  cooldownMs = new Float64Array(1024);
  /** `DEAD`, `TARGET` (price-target, else price-change), `UP` (operator `>=`). */
  flags = new Uint8Array(1024);
  /** The lists (`TargetLists.index` in `lists`) each entry is in. */
  list = new Int32Array(1024);
  readonly lists: TargetLists[] = [];
  private readonly free: number[] = [];
  private next = 0;

  take(): number {
    const slot = this.free.pop();
    if (slot !== undefined) return slot;
    if (this.next === this.id.length) {
      const grow = <A extends Float64Array | Uint8Array | Int32Array>(a: A): A => {
        const b = new (a.constructor as new (n: number) => A)(a.length * 2);
        b.set(a);
        return b;
      };
      this.id = grow(this.id);
      this.value = grow(this.value);
      this.initial = grow(this.initial);
      this.lastMs = grow(this.lastMs);
      this.cooldownMs = grow(this.cooldownMs);
      this.flags = grow(this.flags);
      this.list = grow(this.list);
    }
    return this.next++;
  }

  /** Slots ever taken (the store's size): live entries, dead ones their lists still hold, and free ones. */
  get used(): number {
    return this.next;
  }

  dead(slot: number): boolean {
    return (this.flags[slot]! & DEAD) !== 0;
  }

  /** Marks it dead; its list gives the slot back (`release`) once it no longer holds it. */
  kill(slot: number): void {
    this.flags[slot]! |= DEAD;
  }

  release(slot: number): void {
    this.free.push(slot);
  }

  listOf(slot: number): TargetLists {
    return this.lists[this.list[slot]!]!;
  }

  /** Registers a list, so entries can name it by number. */
  register(list: TargetLists): number {
    return this.lists.push(list) - 1;
  }
}

interface LoadedRow {
  id: string;
  notification_type_id: number;
  targetable_type: string;
  targetable_id: string;
  asset_type: string | null;
  operator: '>=' | '<=';
  /** `numeric` text. */
  value: string;
  initial_value: string;
  last_triggered_at: Date | null;
  cooldown_minutes: number | null;
}

const ENTRY_COLUMNS = 'id::text, notification_type_id, targetable_type, targetable_id::text, asset_type, operator, value, initial_value, last_triggered_at, cooldown_minutes';
const MIN_STEP = Math.min(...PRICE_CHANGE_THRESHOLDS);
/** Changes are read again for this long after they were written: a transaction commits after its trigger ran. */
const CHANGE_WINDOW_MS = 60_000;

const assetKey = (type: string, id: number | string) => `${type}:${id}`;

/**
 * True while a price-change's cooldown after its last firing runs (as the notification decider decides it): such
 * an entry cannot fire now. `last_triggered_at` only ever moves forward (a firing sets it to now, past the
 * cooldown; nothing else writes it) and an entry's `lastMs` is never ahead of its row's, so an entry in
 * its cooldown here is in it in the database too: skipping it keeps the candidates a superset.
 */
const cooling = (E: Entries, s: number, nowMs: number) => E.cooldownMs[s]! > 0 && nowMs < E.lastMs[s]! + E.cooldownMs[s]!;

/** A price-change's threshold on the day starting at `todayMs`: one that grew and last fired before today is its step again (the daily reset). */
const thresholdOn = (E: Entries, s: number, todayMs: number) => (E.initial[s]! > E.value[s]! && E.lastMs[s]! < todayMs ? E.value[s]! : E.initial[s]!);

/**
 * The notifications of one asset or group, each kind sorted by its threshold so a match reads only the
 * entries that cross (a prefix). Kept sorted lazily: any change marks the lists dirty, and the next match
 * sorts them again (nearly sorted; cheap) and drops dead entries.
 */
class TargetLists {
  /** Its number in `Entries.lists`. */
  readonly index: number;

  /**
   * @param key asset key (asset targets) or group key (portfolio/watchlist targets)
   * @param group whether it is a portfolio's or watchlist's
   */
  constructor(
    readonly key: string,
    readonly group: boolean,
    private readonly E: Entries,
  ) {
    this.index = E.register(this);
  }

  /** Price-targets `>=`, by target ascending; `<=`, descending (slots). */
  up: number[] = [];
  down: number[] = [];
  /** Price-changes, by current threshold ascending. */
  changes: number[] = [];
  dirty = false;
  /** A group's: the assets it holds (their `Holders` are sorted by this group's lowest threshold). */
  holders: Holders[] = [];
  /** Price-changes whose threshold grew, by last firing ascending: those before today count as their step. */
  grown: number[] = [];
  /** The earliest last firing of a grown price-change threshold (the daily reset may apply to it). */
  minLastGrown = Infinity;
  /** Counts touches: each cached threshold below knows the entries it was computed from. */
  private version = 0;
  /** The lowest price-change threshold now (after the daily reset of `lowDay`): a group below it cannot fire. */
  private low = Infinity;
  private lowDay = NaN;
  private lowVersion = -1;
  /** The lowest threshold among entries out of their cooldown, valid for `lowNowDay` until `lowNowUntil`. */
  private lowNow = Infinity;
  private lowNowDay = NaN;
  private lowNowUntil = -Infinity;
  private lowNowVersion = -1;

  add(s: number): void {
    const f = this.E.flags[s]!;
    (f & TARGET ? (f & UP ? this.up : this.down) : this.changes).push(s);
    this.touch();
  }

  /** An entry was added, removed or changed: sorted again at the next match; its holders look at its threshold. */
  touch(): void {
    this.dirty = true;
    this.version++;
    for (const h of this.holders) h.pending.add(this);
  }

  /** Sorts the lists again, dropping dead entries and giving their slots back. */
  tidy(): void {
    if (!this.dirty) return;
    const E = this.E;
    const { initial, value, lastMs } = E;
    const alive = (list: number[]) =>
      list.filter((s) => {
        if (!E.dead(s)) return true;
        E.release(s);
        return false;
      });
    this.up = alive(this.up).sort((a, b) => initial[a]! - initial[b]!);
    this.down = alive(this.down).sort((a, b) => initial[b]! - initial[a]!);
    this.changes = alive(this.changes).sort((a, b) => initial[a]! - initial[b]!);
    this.grown = this.changes.filter((s) => initial[s]! > value[s]!).sort((a, b) => lastMs[a]! - lastMs[b]!);
    this.minLastGrown = this.grown.length > 0 ? lastMs[this.grown[0]!]! : Infinity;
    this.dirty = false;
  }

  lowest(todayMs: number): number {
    if (this.lowVersion !== this.version || this.lowDay !== todayMs) {
      this.tidy();
      this.low = Infinity;
      for (const s of this.changes) {
        const t = thresholdOn(this.E, s, todayMs);
        if (t < this.low) this.low = t;
      }
      this.lowDay = todayMs;
      this.lowVersion = this.version;
    }
    return this.low;
  }

  /**
   * `lowest` without the entries still in their cooldown at `nowMs` (at least `lowest`): a group whose
   * crossing thresholds all wait for their cooldown is passed over without reading its entries. Kept until
   * the first of those cooldowns ends.
   */
  lowestNow(todayMs: number, nowMs: number): number {
    if (this.lowNowVersion !== this.version || this.lowNowDay !== todayMs || nowMs >= this.lowNowUntil) {
      this.tidy();
      const E = this.E;
      const { lastMs, cooldownMs } = E;
      this.lowNow = Infinity;
      this.lowNowUntil = Infinity;
      for (const s of this.changes) {
        if (cooling(E, s, nowMs)) {
          if (lastMs[s]! + cooldownMs[s]! < this.lowNowUntil) this.lowNowUntil = lastMs[s]! + cooldownMs[s]!;
          continue;
        }
        const t = thresholdOn(E, s, todayMs);
        if (t < this.lowNow) this.lowNow = t;
      }
      this.lowNowDay = todayMs;
      this.lowNowVersion = this.version;
    }
    return this.lowNow;
  }

  /**
   * Adds the ids of the entries a rate / an |24h change| crosses (price-targets only for an asset's own rate),
   * except price-changes still in their cooldown at `nowMs`.
   */
  match(rate: number | null, change: number | null, todayMs: number, nowMs: number, out: Set<number>): void {
    this.tidy();
    const E = this.E;
    const { id, initial, value, lastMs } = E;
    if (rate !== null) {
      for (const s of this.up) {
        if (initial[s]! > rate) break;
        if (!E.dead(s)) out.add(id[s]!);
      }
      for (const s of this.down) {
        if (initial[s]! < rate) break;
        if (!E.dead(s)) out.add(id[s]!);
      }
    }
    if (change === null || change < MIN_STEP) return;
    for (const s of this.changes) {
      if (initial[s]! > change) break;
      if (!E.dead(s) && !cooling(E, s, nowMs)) out.add(id[s]!);
    }
    // Thresholds that grew and last fired before today count as their step (the daily reset; the reset job
    // writes them down at midnight, so this prefix is short).
    if (this.minLastGrown >= todayMs) return;
    for (const s of this.grown) {
      if (lastMs[s]! >= todayMs) break;
      if (!E.dead(s) && initial[s]! > value[s]! && value[s]! <= change && !cooling(E, s, nowMs)) out.add(id[s]!);
    }
  }
}

/** Groups a walk may pass over (their threshold went up since the sort) before the holders are sorted again. */
const WALK_WASTE = 32;

/**
 * The portfolios/watchlists holding one asset, by their lowest threshold, so a change reads only the groups
 * it can fire (a prefix) instead of comparing with every group holding a popular asset. Each group sits by
 * the threshold it had when this was sorted (`lows`), a lower bound of its threshold now: a threshold that
 * went up (a firing) leaves the order valid (the group is passed over, and a walk that passed over more than
 * a few sorts again), one that came down (a create, a switch on, a membership, the daily reset at midnight)
 * sorts it again.
 */
class Holders {
  groups: TargetLists[] = [];
  private lows = new Float64Array(0);
  /** Groups touched since the last walk: their threshold may have come down. */
  readonly pending = new Set<TargetLists>();
  sorted = false;
  private day = NaN;

  /** The groups whose lowest threshold out of its cooldown is at most `change`. */
  *walk(change: number, todayMs: number, nowMs: number): Generator<TargetLists> {
    this.order(todayMs);
    const { groups, lows } = this;
    let passed = 0;
    for (let i = 0; i < groups.length && lows[i]! <= change; i++) {
      const g = groups[i]!;
      if (g.lowest(todayMs) > change) passed++;
      else if (g.lowestNow(todayMs, nowMs) <= change) yield g;
    }
    // Groups whose threshold went up since the sort are passed over for nothing: once that is more than a
    // few, the next walk sorts again.
    if (passed > WALK_WASTE) this.sorted = false;
  }

  order(todayMs: number): void {
    if (this.sorted && this.day === todayMs && this.pending.size > 0) {
      for (const g of this.pending) {
        const i = this.groups.indexOf(g);
        if (i >= 0 && g.lowest(todayMs) < this.lows[i]!) this.sorted = false;
      }
    }
    this.pending.clear();
    if (this.sorted && this.day === todayMs) return;
    const keyed = this.groups.map((g) => ({ g, low: g.lowest(todayMs) })).sort((a, b) => a.low - b.low);
    this.groups = keyed.map((k) => k.g);
    this.lows = Float64Array.from(keyed, (k) => k.low);
    this.sorted = true;
    this.day = todayMs;
  }
}

/**
 * The active notifications of every asset and portfolio/watchlist, in memory, so an evaluation finds its
 * candidates without a database range read per asset. It only has to be a superset: the candidates' rows are
 * then read from the database and decided there, and the database's conditional update and unique step keys
 * keep each step firing once. So it may hold stale entries (fired, switched off or deleted elsewhere; those
 * rows read back inactive or changed, and are corrected here), but must never miss one that can fire: what
 * widens the candidates (a create, a switch on, a threshold coming down, a membership change) is written to
 * `index_changes` by triggers, and every evaluation reads what was written since its last look first. The
 * daily reset is applied at evaluation time (a grown threshold last fired before today counts as its step).
 */
export class CandidateIndex {
  /** Notification id → its entry's slot. */
  private readonly byId = new Map<number, number>();
  private readonly byAsset = new Map<string, TargetLists>();
  private readonly byGroup = new Map<string, TargetLists>();
  /** Asset key → the lists of the portfolios/watchlists holding it; group key → its asset keys. */
  private readonly groupsOf = new Map<string, Holders>();
  private readonly membersOf = new Map<string, Set<string>>();
  /** Database time from which `index_changes` are read again, and the changes already applied since. */
  private since: Date | undefined;
  private readonly applied = new Map<number, number>();
  private loadedAt: Date | undefined;
  /** Lists changed since they were last sorted (`tidy` sorts them between events). */
  private readonly untidy = new Set<TargetLists>();
  /** Each asset key as one string, shared by every group holding the asset. */
  private readonly assetKeys = new Map<string, string>();
  /** The entries, by slot. */
  private E = new Entries();

  /** @param loadPage rows per read while loading (tests make it small to cross pages). */
  constructor(private readonly loadPage = 50_000) {}

  get loaded(): boolean {
    return this.loadedAt !== undefined;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Slots the entries' store has ever taken (tests: a replaced entry's slot is reused). */
  get slotsUsed(): number {
    return this.E.used;
  }

  /** Reads every active notification and membership (at start-up, before the rates consumer runs). */
  async load(db: SqlClient): Promise<void> {
    // Changes from a little before this read are applied again on the first refresh (idempotent).
    const [{ at } = { at: new Date() }] = await db.query<{ at: Date }>('select clock_timestamp() as at');
    this.byId.clear();
    this.byAsset.clear();
    this.byGroup.clear();
    this.groupsOf.clear();
    this.membersOf.clear();
    this.assetKeys.clear();
    this.E = new Entries();
    this.applied.clear();
    // In pages by key, so a million rows are never all in memory as query results at once.
    for (let after = '0'; ; ) {
      // Ordered by the column, not by the text alias `id` of the select list.
      const rows = await db.query<LoadedRow>(`select ${ENTRY_COLUMNS} from notifications n where n.is_active and n.id > $1 order by n.id limit ${this.loadPage}`, [after]);
      for (const r of rows) this.put(r);
      if (rows.length < this.loadPage) break;
      after = rows[rows.length - 1]!.id;
    }
    for (let after = ['', '0', '', '0']; ; ) {
      const members = await db.query<{ target_type: string; target_id: string; asset_type: string; asset_id: string }>(
        `select m.target_type, m.target_id::text, m.asset_type, m.asset_id::text from memberships m
          where (m.target_type, m.target_id, m.asset_type, m.asset_id) > ($1, $2::bigint, $3, $4::bigint)
          order by m.target_type, m.target_id, m.asset_type, m.asset_id limit ${this.loadPage}`,
        after,
      );
      for (const m of members) this.addMember(assetKey(m.target_type, m.target_id), assetKey(m.asset_type, m.asset_id));
      if (members.length < this.loadPage) break;
      const last = members[members.length - 1]!;
      after = [last.target_type, last.target_id, last.asset_type, last.asset_id];
    }
    for (const lists of [this.byAsset, this.byGroup]) for (const l of lists.values()) l.tidy();
    this.untidy.clear();
    this.since = new Date(new Date(at).getTime() - CHANGE_WINDOW_MS);
    this.loadedAt = new Date(at);
  }

  /**
   * Orders every asset's groups by their lowest threshold for the day starting at `startOfToday`, so the
   * first event after loading does not (the evaluator calls it after `load`; events order only what changed).
   */
  prepare(startOfToday: Date): void {
    const todayMs = startOfToday.getTime();
    for (const h of this.groupsOf.values()) h.order(todayMs);
  }

  /** Applies what `index_changes` recorded since the last look (one indexed read; usually nothing). */
  async refresh(db: SqlClient): Promise<number> {
    if (!this.since) return 0;
    const changes = await db.query<{ id: string; notification_id: string | null; target_type: string | null; target_id: string | null; at: Date; now: Date }>(
      'select id::text, notification_id::text, target_type, target_id::text, at, clock_timestamp() as now from index_changes where at > $1 order by index_changes.id',
      [this.since],
    );
    const nextSince = changes.length > 0 ? new Date(new Date(changes[0]!.now).getTime() - CHANGE_WINDOW_MS) : undefined;
    const ids = new Set<number>();
    const groups = new Map<string, { type: string; id: string }>();
    // Marked applied only once read and applied below: a read that fails leaves them to the next refresh.
    const applying: [number, number][] = [];
    for (const c of changes) {
      const id = Number(c.id);
      if (this.applied.has(id)) continue;
      applying.push([id, new Date(c.at).getTime()]);
      if (c.notification_id !== null) ids.add(Number(c.notification_id));
      if (c.target_type !== null && c.target_id !== null) groups.set(assetKey(c.target_type, c.target_id), { type: c.target_type, id: c.target_id });
    }
    if (ids.size > 0) {
      const rows = await db.query<LoadedRow & { is_active: boolean }>(`select ${ENTRY_COLUMNS}, is_active from notifications where id = any($1::bigint[])`, [[...ids]]);
      for (const id of ids) this.remove(id);
      for (const r of rows) if (r.is_active) this.put(r);
    }
    if (groups.size > 0) {
      const list = [...groups.values()];
      const rows = await db.query<{ target_type: string; target_id: string; asset_type: string; asset_id: string }>(
        `select m.target_type, m.target_id::text, m.asset_type, m.asset_id::text from memberships m
           join unnest($1::text[], $2::bigint[]) as g(target_type, target_id) using (target_type, target_id)`,
        [list.map((g) => g.type), list.map((g) => g.id)],
      );
      for (const g of groups.keys()) this.clearMembers(g);
      for (const m of rows) this.addMember(assetKey(m.target_type, m.target_id), assetKey(m.asset_type, m.asset_id));
    }
    for (const [id, atMs] of applying) this.applied.set(id, atMs);
    if (nextSince) {
      // Forget applied changes older than the window: they are not read again.
      if (this.since < nextSince) this.since = nextSince;
      for (const [id, atMs] of this.applied) if (atMs <= this.since.getTime()) this.applied.delete(id);
    }
    return ids.size + groups.size;
  }

  /**
   * The notifications the given fresh rates can fire, by the index's knowledge: price-targets whose target
   * the rate reached, price-changes whose threshold (the step, after the daily reset) the |24h change| of the
   * asset, or of a member of the portfolio/watchlist, reached, and whose cooldown has passed at `now`.
   */
  candidates(rates: readonly RateView[], startOfToday: Date, now: Date): number[] {
    const todayMs = startOfToday.getTime();
    const nowMs = now.getTime();
    const out = new Set<number>();
    for (const r of rates) {
      const key = assetKey(r.assetType, r.assetId);
      const change = r.change24h === null ? null : Math.abs(r.change24h);
      this.byAsset.get(key)?.match(r.rate, change, todayMs, nowMs, out);
      if (change === null || change < MIN_STEP) continue;
      // Most groups holding the asset have no threshold this low: the walk stops at the first of them.
      const holders = this.groupsOf.get(key);
      if (holders) for (const g of holders.walk(change, todayMs, nowMs)) g.match(null, change, todayMs, nowMs, out);
    }
    return [...out];
  }

  /**
   * The portfolio/watchlist targets among `ids`, each with its members' asset keys as the index holds them:
   * brought up to date by the same `refresh` as the entries, so as current as a read of `memberships` then.
   */
  groupMembers(ids: readonly number[]): Map<string, readonly string[]> {
    const groups = new Map<string, readonly string[]>();
    for (const id of ids) {
      const slot = this.byId.get(id);
      const list = slot === undefined ? undefined : this.E.listOf(slot);
      if (list?.group && !groups.has(list.key)) groups.set(list.key, [...(this.membersOf.get(list.key) ?? [])]);
    }
    return groups;
  }

  /** Brings entries in line with their rows as just read (`rows`); a candidate not read back has left. */
  sync(candidateIds: readonly number[], rows: readonly { id: string; is_active: boolean; initial_value: string; value: string; last_triggered_at: Date | null }[]): void {
    const read = new Map(rows.map((r) => [Number(r.id), r]));
    for (const id of candidateIds) {
      const r = read.get(id);
      const s = this.byId.get(id);
      if (s === undefined) continue;
      if (!r || !r.is_active) this.remove(id);
      else {
        const { E } = this;
        const lastMs = r.last_triggered_at ? new Date(r.last_triggered_at).getTime() : -Infinity;
        const initialValue = Number(r.initial_value);
        const value = Number(r.value);
        if (E.initial[s] === initialValue && E.value[s] === value && E.lastMs[s] === lastMs) continue;
        E.initial[s] = initialValue;
        E.value[s] = value;
        E.lastMs[s] = lastMs;
        this.touched(E.listOf(s));
      }
    }
  }

  /**
   * The new state of notifications whose firing just committed (thresholds up, price-targets inactive), so
   * the next batch does not read them again. Only after the commit, and before the next `refresh`: a change
   * committed after the firing (a switch) comes through `index_changes` then and wins.
   */
  noteFired(states: readonly Pick<NotificationState, 'id' | 'isActive' | 'initialValue' | 'lastTriggeredAt'>[]): void {
    for (const next of states) {
      const s = this.byId.get(next.id);
      if (s === undefined) continue;
      if (!next.isActive) {
        this.remove(next.id);
        continue;
      }
      this.E.initial[s] = next.initialValue.toNumber();
      this.E.lastMs[s] = next.lastTriggeredAt ? next.lastTriggeredAt.getTime() : -Infinity;
      this.touched(this.E.listOf(s));
    }
  }

  private put(r: LoadedRow): void {
    const group = r.targetable_type !== 'asset';
    const id = Number(r.id);
    this.remove(id);
    const key = group ? assetKey(r.targetable_type, r.targetable_id) : assetKey(r.asset_type!, r.targetable_id);
    let list = group ? this.groupLists(key) : this.byAsset.get(key);
    if (!list) this.byAsset.set(key, (list = new TargetLists(key, false, this.E)));
    const target = r.notification_type_id === NotificationTypeIds.priceTarget;
    const { E } = this;
    const s = E.take();
    E.id[s] = id;
    E.flags[s] = (target ? TARGET : 0) | (r.operator === '>=' ? UP : 0);
    E.cooldownMs[s] = target ? 0 : (r.cooldown_minutes ?? 0) * 60_000;
    E.value[s] = Number(r.value);
    E.initial[s] = Number(r.initial_value);
    E.lastMs[s] = r.last_triggered_at ? new Date(r.last_triggered_at).getTime() : -Infinity;
    E.list[s] = list.index;
    this.byId.set(id, s);
    list.add(s);
    this.untidy.add(list);
  }

  private touched(list: TargetLists): void {
    list.touch();
    this.untidy.add(list);
  }

  /**
   * Sorts the lists changed since they were last sorted, now (the rates consumer calls it once an event is
   * done), so the next event's match does not: a batch that fired on popular assets leaves their lists of
   * tens of thousands of entries to sort again.
   */
  tidy(): void {
    for (const list of this.untidy) list.tidy();
    this.untidy.clear();
  }

  private remove(id: number): void {
    const s = this.byId.get(id);
    if (s === undefined) return;
    this.E.kill(s);
    this.byId.delete(id);
    const list = this.E.listOf(s);
    // Dropped from its sorted list, and its slot given back, when the list is next tidied. An asset's list
    // stays when it empties, as a group's does: it is one of a few thousand, and a new one for the same
    // asset would be another in `Entries.lists`.
    this.touched(list);
  }

  private groupLists(group: string): TargetLists {
    let list = this.byGroup.get(group);
    if (!list) this.byGroup.set(group, (list = new TargetLists(group, true, this.E)));
    return list;
  }

  private addMember(group: string, assetKeyText: string): void {
    let members = this.membersOf.get(group);
    if (!members) this.membersOf.set(group, (members = new Set()));
    if (members.has(assetKeyText)) return;
    // One string per asset in every group's members (hundreds of thousands of memberships, a few thousand assets).
    let asset = this.assetKeys.get(assetKeyText);
    if (asset === undefined) this.assetKeys.set(assetKeyText, (asset = assetKeyText));
    members.add(asset);
    let holders = this.groupsOf.get(asset);
    if (!holders) this.groupsOf.set(asset, (holders = new Holders()));
    const list = this.groupLists(group);
    holders.groups.push(list);
    holders.sorted = false;
    list.holders.push(holders);
  }

  private clearMembers(group: string): void {
    const list = this.byGroup.get(group);
    for (const asset of this.membersOf.get(group) ?? []) {
      const holders = this.groupsOf.get(asset);
      if (!holders) continue;
      holders.groups = holders.groups.filter((g) => g !== list);
      holders.sorted = false;
      if (holders.groups.length === 0) this.groupsOf.delete(asset);
    }
    if (list) list.holders = [];
    this.membersOf.delete(group);
  }
}
