import { tickerPath } from '../asset-path';
import { Link } from './link';

/** A ticker as shown anywhere in the app: a link to its asset page, plain text for a custom asset (no page). */
export function TickerLink({ type, ticker, testId, className }: { type: string; ticker: string; testId?: string; className?: string }) {
  const to = tickerPath(type, ticker);
  return to ? (
    <Link to={to} data-testid={testId} className={className}>
      {ticker}
    </Link>
  ) : (
    <span data-testid={testId} className={className}>
      {ticker}
    </span>
  );
}
