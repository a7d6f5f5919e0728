import { createCustomAssetRequestSchema, createDealBodySchema, dealSchema, getStatisticsReplySchema, notificationSchema } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { openApiSchema } from './openapi.schemas.js';

type Props = Record<string, Record<string, unknown>>;
const props = (s: { properties?: unknown }) => s.properties as Props;

describe('OpenAPI schemas of exact decimals', () => {
  it('documents deal and custom-asset inputs as numbers with one scale and range', () => {
    const deal = props(openApiSchema(createDealBodySchema, 'input'));
    expect(deal.quantity).toMatchObject({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1e15, multipleOf: 1e-8 });
    expect(deal.price).toMatchObject({ type: 'number', minimum: 0, maximum: 1e15, multipleOf: 1e-8 });
    expect(deal.price).not.toHaveProperty('exclusiveMinimum');
    expect(deal.commission).toMatchObject({ type: 'number', minimum: 0, maximum: 1e15, multipleOf: 1e-8, default: 0 });
    expect(props(openApiSchema(createCustomAssetRequestSchema, 'input')).price).toEqual(deal.quantity);
  });

  it('documents decimal outputs as numbers', () => {
    expect(props(openApiSchema(dealSchema)).amount).toMatchObject({ type: 'number' });
    const totals = props(props(openApiSchema(getStatisticsReplySchema)).data!).totals as { properties: Props };
    expect(totals.properties.totalCommissions).toMatchObject({ type: 'number' });
    const notification = props(openApiSchema(notificationSchema));
    const condition = props(notification.condition!);
    expect(condition.value).toMatchObject({ type: 'number' });
    expect(condition.initial_value).toMatchObject({ type: 'number' });
    expect(props(notification.target!).current_rate).toMatchObject({ type: 'number', nullable: true });
  });
});
