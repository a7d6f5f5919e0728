import { describe, expect, it } from 'vitest';
import type { CrossedAsset } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import type { FiringDecision } from './evaluation.types.js';
import { type NotificationTypeRow, renderFiring } from './render-firing.js';

const type: NotificationTypeRow = { id: 8, code: 'price-change', titleTemplate: { ru: '{change}|{rate}', en: '{change}|{rate}' }, bodyTemplate: { ru: '', en: '' }, path: '/x' };
const asset = (change: number, rate = 1): CrossedAsset => ({ type: 'share', id: 1, ticker: 'T', name: null, rate, price_change_percentage_24h: change, as_of: new Date(0).toISOString() });
const decision = { threshold: Decimal.of(1), nextThreshold: Decimal.of(2) } as unknown as FiringDecision;
const render = (change: number, rate?: number) => renderFiring(type, decision, { type: 'asset', id: 1, name: null }, [asset(change, rate)]).texts;

describe('renderFiring number formats (memoised)', () => {
  it('renders a change that rounds to zero as 0, whatever was rendered before (never -0)', () => {
    // -0.001 first: it rounds to -0, which Intl writes "-0" and the memo would then give for 0 as well.
    expect(render(-0.001).en.title).toBe('0|1');
    expect(render(0).en.title).toBe('0|1');
    expect(render(-0.001).ru.title).toBe('0|1');
  });

  it('gives each locale its own format of the same number', () => {
    expect(render(1.5, 1234.5)).toEqual({ ru: { title: '+1,5|1\u00a0234,5', body: '' }, en: { title: '+1.5|1,234.5', body: '' } });
    expect(render(-2.25, 1234.5).en.title).toBe('-2.25|1,234.5');
    expect(render(-2.25, 1234.5).ru.title).toBe('-2,25|1\u00a0234,5');
  });

  it('fills placeholders side by side and keeps the ones it does not know', () => {
    const odd: NotificationTypeRow = { ...type, titleTemplate: { ru: '{ticker}{change}% {unknown} {rate}', en: '{{ticker}}' }, bodyTemplate: { ru: 'без полей', en: '' }, path: '/{asset_type}/{asset_id}/{nope}' };
    const rendered = renderFiring(odd, decision, { type: 'asset', id: 1, name: null }, [asset(2, 3)]);
    expect(rendered.texts).toEqual({ ru: { title: 'T+2% {unknown} 3', body: 'без полей' }, en: { title: '{T}', body: '' } });
    expect(rendered.path).toBe('/share/1/{nope}');
  });
});

describe('renderFiring prices below a millionth and names', () => {
  const target: NotificationTypeRow = { id: 2, code: 'price-target', titleTemplate: { ru: '{rate}|{target}', en: '{rate}|{target}' }, bodyTemplate: { ru: '', en: '' }, path: '/x' };
  const tiny = (rate: number, threshold: string) =>
    renderFiring(target, { threshold: Decimal.of(threshold), nextThreshold: null } as unknown as FiringDecision, { type: 'asset', id: 1, name: null }, [asset(0, rate)]).texts;

  it('renders a sub-millionth rate and target with their significant digits (up to 8), never as 0', () => {
    expect(tiny(0.00000039, '0.0000004').en.title).toBe('0.00000039|0.0000004');
    expect(tiny(0.00000039, '0.0000004').ru.title).toBe('0,00000039|0,0000004');
    expect(tiny(1.23456789123e-9, '0.000000000001').en.title).toBe('0.0000000012345679|0.000000000001');
  });

  it('renders usual rates as before: at most 6 fraction digits', () => {
    expect(tiny(100.1234567, '105').en.title).toBe('100.123457|105');
    expect(tiny(1234567.891, '0.5').en.title).toBe('1,234,567.891|0.5');
  });

  it('renders a target as stored, every digit the user entered, more than a double keeps too', () => {
    expect(tiny(1e12, '1000000000000.00000001')).toEqual({ ru: { title: '1\u00a0000\u00a0000\u00a0000\u00a0000|1\u00a0000\u00a0000\u00a0000\u00a0000,00000001', body: '' }, en: { title: '1,000,000,000,000|1,000,000,000,000.00000001', body: '' } });
    expect(tiny(100, '100.12345678').en.title).toBe('100|100.12345678');
  });

  it('{subject_name} names an asset by its name and ticker (the ticker alone without a name), a group by its kind and name', () => {
    const named: NotificationTypeRow = { ...type, titleTemplate: { ru: '{subject_name}', en: '{subject_name}' } };
    const render1 = (name: string | null, t: { type: 'asset' | 'portfolio' | 'watchlist'; id: number; name: string | null }) =>
      renderFiring(named, decision, t, [{ ...asset(1), name }]).texts;
    expect(render1('Sberbank', { type: 'asset', id: 1, name: null }).en.title).toBe('Sberbank (T)');
    expect(render1(null, { type: 'asset', id: 1, name: null }).en.title).toBe('T');
    expect(render1('Sberbank', { type: 'watchlist', id: 4, name: 'Banks' })).toEqual({ ru: { title: 'Список наблюдения «Banks»', body: '' }, en: { title: 'Watchlist «Banks»', body: '' } });
    expect(render1(null, { type: 'portfolio', id: 9, name: null }).en.title).toBe('Portfolio #9');
  });

  it('rates from 0.001 up keep at most six fraction digits; below, eight significant ones', () => {
    expect(tiny(1.23456789, '0.12345678').en.title).toBe('1.234568|0.12345678');
    expect(tiny(0.000123456789, '0.001').en.title).toBe('0.00012345679|0.001');
  });
});
