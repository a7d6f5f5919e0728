import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDemoProviders } from '@invest/platform/demo/demo-providers';
import { DEV_CLOUDPAYMENTS_SECRET } from '../config/billing.config.js';
import { demoProviders } from './demo-providers.js';

describe('the CloudPayments of npm start', () => {
  let running: RunningDemoProviders;
  beforeAll(async () => {
    running = await demoProviders.start();
  });
  afterAll(() => running?.close());

  it('fills CLOUDPAYMENTS_API_URL (and the widget script beside it) with a local server that accepts billing’s development credentials', async () => {
    expect(Object.keys(running.env)).toEqual(['CLOUDPAYMENTS_API_URL', 'CLOUDPAYMENTS_WIDGET_URL']);
    const url = running.env.CLOUDPAYMENTS_API_URL!;
    expect(running.env.CLOUDPAYMENTS_WIDGET_URL).toBe(`${url}/widget/cloudpayments.js`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const auth = `Basic ${Buffer.from(`pk_dev_public_id:${DEV_CLOUDPAYMENTS_SECRET}`).toString('base64')}`;
    const res = await fetch(`${url}/test`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { Success: boolean }).Success).toBe(true);
    expect(running.hint).toContain(`${url}/demo/pay`);
  });

  it('starts nothing when a real CloudPayments is configured: its own widget goes with it', async () => {
    const before = process.env.CLOUDPAYMENTS_API_URL;
    process.env.CLOUDPAYMENTS_API_URL = 'https://api.cloudpayments.ru';
    try {
      const real = await demoProviders.start();
      expect(real.env).toEqual({});
      await real.close();
    } finally {
      if (before === undefined) delete process.env.CLOUDPAYMENTS_API_URL;
      else process.env.CLOUDPAYMENTS_API_URL = before;
    }
  });
});
