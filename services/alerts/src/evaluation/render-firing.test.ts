import { describe, expect, it } from 'vitest';
import type { CrossedAsset } from '@invest/contracts';
import type { FiringDecision } from './evaluation.types.js';
import { type NotificationTypeRow, renderFiring } from './render-firing.js';

const type: NotificationTypeRow = { id: 8, code: 'price-change', titleTemplate: { ru: '{change}|{rate}', en: '{change}|{rate}' }, bodyTemplate: { ru: '', en: '' }, path: '/x' };
const asset = (change: number, rate = 1): CrossedAsset => ({ type: 'share', id: 1, ticker: 'T', name: null, rate, price_change_percentage_24h: change, as_of: new Date(0).toISOString() });
const decision = { threshold: 1, nextThreshold: 2 } as unknown as FiringDecision;
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
