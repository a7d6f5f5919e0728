/**
 * Market context added to a portfolio prompt by the portfolio's currency code (spec: "for code RU";
 * portfolios carry ISO 4217 codes, so RUB, and RU as the spec writes it). Other currencies: empty.
 */
export const RUSSIAN_MARKET_CONTEXT = [
  'The portfolio is in Russian roubles and invested in the Russian market.',
  'Since 2022 sanctions have cut the Russian market off from most foreign investors and infrastructure: foreign',
  'securities held through Russian brokers may be blocked, many foreign issuers left the Moscow Exchange, and',
  'dividends or coupons from foreign securities can be delayed or withheld.',
  'Available instruments are mainly Russian shares, federal loan bonds (OFZ), corporate bonds, funds (BPIF) on',
  'the Moscow Exchange, currency and gold; access to foreign securities is limited, often to qualified investors.',
  'The Bank of Russia key rate is high, so deposits, money-market funds and floating-rate OFZ compete with equities,',
  'and bond prices are sensitive to rate decisions.',
  'Tax specifics: personal income tax on gains and dividends (13 %, 15 % above the threshold) withheld by the broker',
  'as tax agent; individual investment accounts (IIS) give deductions; the long-term ownership benefit exempts gains',
  'on securities held more than three years within limits.',
].join(' ');

export function marketContextFor(currencyCode: string | null | undefined): string {
  const code = (currencyCode ?? '').trim().toUpperCase();
  return code === 'RUB' || code === 'RU' ? RUSSIAN_MARKET_CONTEXT : '';
}
