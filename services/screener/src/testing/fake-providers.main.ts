/**
 * `npm run providers:fake [-- --port 4010 --static]`: serves the fake MOEX ISS and CoinGecko on one port for a
 * manual demo and prints the URLs to configure. By default prices drift a little on every request and quote
 * times are "now", so each `npm run cmd -- get:assetRates` changes something; `--static` serves the captures
 * exactly as they are.
 */
import { FakeProviders } from './fake-providers.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const port = Number(option('--port') ?? process.env.PORT_FAKE_PROVIDERS ?? 4010);
const live = !process.argv.includes('--static');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`bad --port ${option('--port')}`);
  process.exit(2);
}

const fake = await FakeProviders.start({ port, host: '127.0.0.1', live });
console.log(`Fake market-data providers on ${fake.origin} (${live ? 'prices drift on every request, quote times are now' : 'captures served as they are'})`);
console.log('');
console.log(`  MOEX_ISS_URL=${fake.moexUrl}`);
console.log(`  COINGECKO_URL=${fake.coingeckoUrl}`);
console.log('');
console.log('Point the screener at them, e.g.:');
console.log(`  MOEX_ISS_URL=${fake.moexUrl} COINGECKO_URL=${fake.coingeckoUrl} npm start`);
console.log(`  MOEX_ISS_URL=${fake.moexUrl} npm run cmd -- update:shares-market-stats`);
console.log(`  MOEX_ISS_URL=${fake.moexUrl} COINGECKO_URL=${fake.coingeckoUrl} npm run cmd -- get:assetRates`);
console.log('Ctrl-C stops it.');

let count = 0;
setInterval(() => {
  if (fake.requests.length !== count) {
    for (const r of fake.requests.slice(count)) console.log(`[fake] ${new Date(r.at).toISOString()} GET ${r.path}${r.query.size ? `?${r.query.toString()}` : ''}`);
    count = fake.requests.length;
  }
}, 500).unref();

const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
