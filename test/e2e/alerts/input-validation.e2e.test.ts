/**
 * Input probes of the alerts HTTP routes: every field with wrong types, missing, null, huge, numbers as
 * strings, exponent forms; ids and paging; mark-read of others; Accept-Language; SSE Last-Event-ID.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, OPENING_RATES, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;

const api: AlertsStack['api'] = (...args) => stack.api(...args);

const user = () => `probe-${randomUUID().slice(0, 8)}`;
const share = (t: string) => stack.share(t);
const rates: AlertsStack['applyRates'] = (batch) => stack.applyRates(batch);
const subscribe: AlertsStack['subscribePaid'] = (u) => stack.subscribePaid(u);

beforeAll(async () => {
  stack = await startAlertsStack('alprobe', { tickers: ['SBER', 'GAZP', 'LKOH'], openingRates: OPENING_RATES, alerts: { notificationsPerUser: 1000 } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('body probes', () => {
  it('no price-alert body is a 500; a 422 names a field; a 201 is only for a sound body', async () => {
    const u = user();
    await subscribe(u);
    const sber = stack.shareIds.SBER!;
    const tp: [string, unknown, number | 'bad'][] = [
      ['missing', undefined, 'bad'],
      ['null', null, 'bad'],
      ['true', true, 'bad'],
      ['array', [110], 'bad'],
      ['object', { v: 110 }, 'bad'],
      ['empty string', '', 'bad'],
      ['spaces', '   ', 'bad'],
      ['NaN', 'NaN', 'bad'],
      ['Infinity', 'Infinity', 'bad'],
      ['-Infinity', '-Infinity', 'bad'],
      ['hex', '0x10', 'bad'],
      ['comma', '110,5', 'bad'],
      ['zero', 0, 'bad'],
      ['zero string', '0', 'bad'],
      ['-0', '-0', 'bad'],
      ['negative', -5, 'bad'],
      ['exp', '1.1e2', 201],
      ['exp big', '1e15', 201],
      ['exp over', '1e16', 'bad'],
      ['exp huge', '1e999999', 'bad'],
      ['tiny', '1e-8', 201],
      ['tinier', '1e-9', 'bad'],
      ['string', '120.5', 201],
      ['plus', '+121', 201],
      ['long digits', '123.456789012345678', 'bad'],
    ];
    const out: string[] = [];
    for (const [label, v, expected] of tp) {
      const body: Record<string, unknown> = { assetable: { type: 'share', id: sber }, name: label };
      if (v !== undefined) body.target_price = v;
      const r = await api('POST', '/api/price-alert', { user: u, body });
      const ok = expected === 'bad' ? r.status === 422 && r.body?.errors && 'target_price' in r.body.errors : r.status === expected;
      if (!ok) out.push(`target_price ${label}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    const assetables: [string, unknown][] = [
      ['missing', undefined],
      ['null', null],
      ['string', 'share:1'],
      ['array', [1]],
      ['no type', { id: sber }],
      ['no id', { type: 'share' }],
      ['type null', { type: null, id: sber }],
      ['type number', { type: 1, id: sber }],
      ['type upper', { type: 'SHARE', id: sber }],
      ['id null', { type: 'share', id: null }],
      ['id zero', { type: 'share', id: 0 }],
      ['id negative', { type: 'share', id: -1 }],
      ['id float', { type: 'share', id: 1.5 }],
      ['id bool', { type: 'share', id: true }],
      ['id huge', { type: 'share', id: 1e300 }],
      ['id max safe', { type: 'share', id: Number.MAX_SAFE_INTEGER }],
      ['id 16 digits string', { type: 'share', id: '9999999999999999' }],
      ['id 2^63', { type: 'share', id: '9223372036854775808' }],
      ['id exp string', { type: 'share', id: '1e3' }],
      ['id hex', { type: 'share', id: '0x1' }],
      ['wrong type', { type: 'bond', id: sber }],
      ['custom_asset type', { type: 'custom_asset', id: sber }],
      ['token', { type: 'token', id: sber }],
    ];
    for (const [label, v] of assetables) {
      const body: Record<string, unknown> = { target_price: 150, name: label };
      if (v !== undefined) body.assetable = v;
      const r = await api('POST', '/api/price-alert', { user: u, body });
      const ok = r.status === 422 && r.body?.errors && Object.keys(r.body.errors).some((k) => k.startsWith('assetable'));
      if (!ok) out.push(`assetable ${label}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    const names: [string, unknown, number][] = [
      ['number', 5, 422],
      ['object', {}, 422],
      ['array', ['a'], 422],
      ['bool', false, 422],
      ['null', null, 201],
      ['empty', '', 201],
      ['255', 'x'.repeat(255), 201],
      ['256', 'x'.repeat(256), 422],
      ['emoji 255 code points', '😀'.repeat(128), 201],
      ['NUL', 'a\u0000b', 422],
      ['lone surrogate', 'a\ud800b', 422],
    ];
    for (const [label, v, expected] of names) {
      const r = await api('POST', '/api/price-alert', { user: u, body: { target_price: 151, assetable: { type: 'share', id: sber }, name: v } });
      if (r.status !== expected) out.push(`name ${label}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    // Extra and odd bodies.
    const raws: [string, string, string | undefined, number[]][] = [
      ['array body', '[]', undefined, [422, 400]],
      ['null body', 'null', undefined, [422, 400]],
      ['string body', '"x"', undefined, [422, 400]],
      ['number body', '5', undefined, [422, 400]],
      ['broken json', '{"target_price": ', undefined, [400]],
      ['duplicate keys', `{"target_price": 152, "target_price": "abc", "assetable": {"type": "share", "id": ${sber}}}`, undefined, [422, 400]],
      ['text/plain', `{"target_price": 153, "assetable": {"type": "share", "id": ${sber}}}`, 'text/plain', [415, 400, 422]],
      ['form', `target_price=153&assetable[type]=share&assetable[id]=${sber}`, 'application/x-www-form-urlencoded', [415, 400, 422]],
      ['huge number literal', `{"target_price": 1${'0'.repeat(400)}, "assetable": {"type": "share", "id": ${sber}}}`, undefined, [422]],
      ['deep nesting', `{"target_price": 154, "assetable": {"type": "share", "id": ${sber}}, "x": ${'['.repeat(5000)}${']'.repeat(5000)}}`, undefined, [201, 400, 413, 422]],
      ['__proto__', `{"target_price": 155, "assetable": {"type": "share", "id": ${sber}}, "__proto__": {"name": 5}}`, undefined, [201, 400, 422]],
      ['constructor', `{"target_price": 156, "assetable": {"type": "share", "id": ${sber}, "constructor": {"prototype": {"x": 1}}}}`, undefined, [201, 400, 422]],
    ];
    for (const [label, raw, ct, expected] of raws) {
      const r = await api('POST', '/api/price-alert', { user: u, raw, headers: ct ? { 'content-type': ct } : {} });
      if (!expected.includes(r.status)) out.push(`raw ${label}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    expect(out).toEqual([]);
  });

  it('no price-change-alert body is a 500; a 422 names its field', async () => {
    const u = user();
    await subscribe(u);
    const sber = stack.shareIds.SBER!;
    const base = { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: sber, assetable_type_simplified: 'share', name: 'x' };
    const cases: [string, Record<string, unknown>, string | 201][] = [
      ['threshold missing', { threshold: undefined }, 'threshold'],
      ['threshold null', { threshold: null }, 'threshold'],
      ['threshold "5"', { threshold: '5' }, 201],
      ['threshold " 5 "', { threshold: ' 5 ' }, 201],
      ['threshold 5.0 string', { threshold: '5.0' }, 'threshold'],
      ['threshold 5e0 string', { threshold: '5e0' }, 'threshold'],
      ['threshold 0', { threshold: 0 }, 'threshold'],
      ['threshold -5', { threshold: -5 }, 'threshold'],
      ['threshold 4', { threshold: 4 }, 'threshold'],
      ['threshold 2.5', { threshold: 2.5 }, 'threshold'],
      ['threshold 15', { threshold: 15 }, 'threshold'],
      ['threshold true', { threshold: true }, 'threshold'],
      ['threshold [5]', { threshold: [5] }, 'threshold'],
      ['threshold NaN', { threshold: 'NaN' }, 'threshold'],
      ['threshold huge digits', { threshold: '9'.repeat(400) }, 'threshold'],
      ['frequency null', { frequency: null }, 'frequency'],
      ['frequency HOURLY', { frequency: 'HOURLY' }, 'frequency'],
      ['frequency number', { frequency: 60 }, 'frequency'],
      ['targetable_type null', { targetable_type: null }, 'targetable_type'],
      ['targetable_type Asset', { targetable_type: 'Asset' }, 'targetable_type'],
      ['targetable_id null', { targetable_id: null }, 'targetable_id'],
      ['targetable_id 0', { targetable_id: 0 }, 'targetable_id'],
      ['targetable_id -1', { targetable_id: -1 }, 'targetable_id'],
      ['targetable_id 1.5', { targetable_id: 1.5 }, 'targetable_id'],
      ['targetable_id 1e300', { targetable_id: 1e300 }, 'targetable_id'],
      ['targetable_id max safe', { targetable_id: Number.MAX_SAFE_INTEGER }, 'targetable_id'],
      ['targetable_id 15 digits', { targetable_id: '999999999999999' }, 'targetable_id'],
      ['targetable_id string', { targetable_id: String(sber) }, 201],
      ['assetable_type_simplified null', { assetable_type_simplified: null }, 'assetable_type_simplified'],
      ['assetable_type_simplified planet', { assetable_type_simplified: 'planet' }, 'assetable_type_simplified'],
      ['assetable_type_simplified bond (mismatch)', { assetable_type_simplified: 'bond' }, 'targetable_id'],
      ['portfolio with asset type', { targetable_type: 'portfolio', targetable_id: 99_999_999 }, 'targetable_id'],
      ['portfolio max safe id', { targetable_type: 'portfolio', targetable_id: Number.MAX_SAFE_INTEGER }, 'targetable_id'],
      ['watchlist huge id', { targetable_type: 'watchlist', targetable_id: 2 ** 53 - 1 }, 'targetable_id'],
      ['watchlist with planet asset type', { targetable_type: 'watchlist', targetable_id: 1, assetable_type_simplified: 'planet' }, 'assetable_type_simplified'],
    ];
    const out: string[] = [];
    for (const [label, over, expected] of cases) {
      const body: Record<string, unknown> = { ...base, ...over };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const r = await api('POST', '/api/price-change-alert', { user: u, body });
      const ok = expected === 201 ? r.status === 201 : r.status === 422 && r.body?.errors && expected in r.body.errors;
      if (!ok) out.push(`${label}: ${r.status} ${r.text.slice(0, 240)}`);
    }
    expect(out).toEqual([]);
  });
});

describe('ids, paging and mark-read', () => {
  it('switch and delete: non-numeric, huge, negative and other users\' ids are 404 (never 500)', async () => {
    const [a, b] = [user(), user()];
    const n = (await api('POST', '/api/price-alert', { user: a, body: { target_price: 110, assetable: share('SBER') } })).body.data;
    const ids = ['abc', '-1', '0', '1.5', '1e3', '9007199254740991', '9007199254740992', '99999999999999999999', '%20', '1%00', `${n.id}%0A`, `0${n.id}`, `+${n.id}`, `${n.id}.0`, 'null', `${n.id}abc`];
    const out: string[] = [];
    for (const id of ids) {
      for (const [m, p] of [
        ['POST', `/api/switch-notification/${id}`],
        ['DELETE', `/api/notifications/${id}`],
      ] as const) {
        const r = await api(m, p, { user: b });
        if (r.status !== 404) out.push(`${m} ${p}: ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
    for (const [m, p] of [
      ['POST', `/api/switch-notification/${n.id}`],
      ['DELETE', `/api/notifications/${n.id}`],
    ] as const) {
      const r = await api(m, p, { user: b });
      if (r.status !== 404) out.push(`other user ${m} ${p}: ${r.status}`);
    }
    const mine = await api('GET', '/api/notifications', { user: a });
    expect(mine.body.data[0]).toMatchObject({ id: n.id, is_active: true });
    expect(out).toEqual([]);
  });

  it('paging params of both lists: bad values are 422 naming them, huge pages are empty, never 500', async () => {
    const u = user();
    const out: string[] = [];
    for (const path of ['/api/notifications', '/api/notification-events']) {
      for (const q of ['page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=1e3', 'page= 1', 'per_page=0', 'per_page=101', 'per_page=-5', 'per_page=9999999999999999999999', 'page=99999999999999999999999', 'page=1&page=2']) {
        const r = await api('GET', `${path}?${q}`, { user: u });
        const name = q.split(/[=[&]/)[0]!;
        if (!(r.status === 422 && r.body?.errors && Object.keys(r.body.errors).some((k) => k.startsWith(name)))) out.push(`${path}?${q}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      for (const q of ['page=2147483647', 'page=2147483647&per_page=100', 'page=&per_page=', 'unknown=1']) {
        const r = await api('GET', `${path}?${q}`, { user: u });
        if (r.status !== 200) out.push(`${path}?${q}: ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
    // after_id is not a parameter of the inbox (the SSE replay's only).
    const r = await api('GET', '/api/notification-events?after_id=abc', { user: u });
    if (r.status !== 200 && r.status !== 422) out.push(`after_id=abc: ${r.status}`);
    expect(out).toEqual([]);
  });

  it("mark-read: another user's firing ids change nothing; bad bodies are 422", async () => {
    const [a, b] = [user(), user()];
    const n = (await api('POST', '/api/price-alert', { user: a, body: { target_price: 120, assetable: share('GAZP') } })).body.data;
    await rates([{ ticker: 'GAZP', rate: 119, change: 0 }]);
    try {
      const inbox = await api('GET', '/api/notification-events', { user: a });
      expect(inbox.body.meta.unread_count).toBe(1);
      const fid = inbox.body.data[0].id;
      expect(inbox.body.data[0].notification_id).toBe(n.id);
      const theirs = await api('POST', '/api/notification-events/read', { user: b, body: { ids: [fid] } });
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toEqual({ marked: 0, unread_count: 0 });
      const all = await api('POST', '/api/notification-events/read', { user: b, body: { all: true } });
      expect(all.body.data.marked).toBe(0);
      expect((await api('GET', '/api/notification-events', { user: a })).body.meta.unread_count).toBe(1);
      const bad: unknown[] = [{}, { ids: [] }, { ids: 'x' }, { ids: [0] }, { ids: [-1] }, { ids: [1.5] }, { ids: ['1'] }, { ids: [1e300] }, { ids: [2 ** 63] }, { all: 'true' }, { all: false }, { ids: Array(501).fill(1) }, { ids: null }];
      const out: string[] = [];
      for (const body of bad) {
        const r = await api('POST', '/api/notification-events/read', { user: a, body });
        if (r.status !== 422) out.push(`${JSON.stringify(body).slice(0, 60)}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      // An id beyond bigint but a safe integer? None: the largest safe integer fits. Numbers beyond it are 422 (above).
      const big = await api('POST', '/api/notification-events/read', { user: a, body: { ids: [Number.MAX_SAFE_INTEGER] } });
      if (big.status !== 200) out.push(`max safe id: ${big.status} ${big.text.slice(0, 200)}`);
      expect(out).toEqual([]);
    } finally {
      await rates([{ ticker: 'GAZP', rate: 200, change: 0 }]);
    }
  });
});

describe('Accept-Language and SSE', () => {
  it('renders by Accept-Language: en variants in English, ru and anything unsupported in Russian', async () => {
    const u = user();
    await api('POST', '/api/price-alert', { user: u, body: { target_price: 310, assetable: share('LKOH') } });
    await rates([{ ticker: 'LKOH', rate: 1312.5, change: 0 }]);
    try {
      const title = async (lang?: string) => (await api('GET', '/api/notification-events', { user: u, headers: lang === undefined ? {} : { 'accept-language': lang } })).body.data[0].title as string;
      const en = 'LKOH: price 1,312.5';
      const cases: [string | undefined, 'en' | 'ru'][] = [
        ['en', 'en'],
        ['en-US', 'en'],
        ['EN-gb', 'en'],
        ['en-US,en;q=0.9', 'en'],
        ['ru;q=0.9, en', 'en'],
        ['ru;q=0.9, en;q=0.95', 'en'],
        ['en;q=0.5, ru;q=0.9', 'ru'],
        ['de, en;q=0.1', 'en'],
        ['de', 'ru'],
        ['*', 'ru'],
        ['en;q=0', 'ru'],
        ['garbage;;;,,,', 'ru'],
        ['\u00ff\u00fe', 'ru'],
        ['', 'ru'],
        [undefined, 'ru'],
        ['ru', 'ru'],
        ['ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7', 'ru'],
        ['x'.repeat(4000), 'ru'],
      ];
      const out: string[] = [];
      for (const [lang, want] of cases) {
        let t: string;
        try {
          t = await title(lang);
        } catch (e) {
          out.push(`${JSON.stringify(lang)}: ${String(e)}`);
          continue;
        }
        const got = t === en ? 'en' : /цена/.test(t) ? 'ru' : `?${t}`;
        if (got !== want) out.push(`${JSON.stringify(lang)}: ${got} (${t})`);
      }
      expect(out).toEqual([]);
    } finally {
      await rates([{ ticker: 'LKOH', rate: 300, change: 0 }]);
    }
  });

  it('SSE Last-Event-ID edge cases: bad values 422, 0 replays all, both header and query', async () => {
    const u = user();
    const out: string[] = [];
    for (const id of ['-1', 'abc', '1.5', '1e3', '9999999999999999', '1, 2']) {
      const ctrl = new AbortController();
      const res = await fetch(new URL('/api/notification-events/stream', stack.base), { headers: { authorization: `Bearer ${await stack.token(u)}`, 'last-event-id': id }, signal: ctrl.signal });
      if (res.status !== 422) out.push(`Last-Event-ID ${JSON.stringify(id)}: ${res.status}`);
      ctrl.abort();
    }
    for (const q of ['last_event_id=abc', 'last_event_id=-1', 'last_event_id=1&last_event_id=2']) {
      const ctrl = new AbortController();
      const res = await fetch(new URL(`/api/notification-events/stream?${q}`, stack.base), { headers: { authorization: `Bearer ${await stack.token(u)}` }, signal: ctrl.signal });
      if (res.status !== 422) out.push(`?${q}: ${res.status}`);
      ctrl.abort();
    }
    expect(out).toEqual([]);
  });
});

