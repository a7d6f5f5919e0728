import type { DemoProviders } from '@invest/platform/demo/demo-providers';
import { FakeProviders } from './fake-providers.js';

/**
 * The demo market of `npm start` in development: MOEX ISS and CoinGecko served locally from the real
 * captures, with prices that drift on every request and quote times of now, on a free port.
 */
export const demoProviders: DemoProviders = {
  description: 'MOEX ISS and CoinGecko served locally from real captures, prices drifting',
  variables: ['MOEX_ISS_URL', 'COINGECKO_URL'],
  async start() {
    const fake = await FakeProviders.start({ host: '127.0.0.1', live: true, recordRequests: false });
    return { env: { MOEX_ISS_URL: fake.moexUrl, COINGECKO_URL: fake.coingeckoUrl }, close: () => fake.close() };
  },
};
