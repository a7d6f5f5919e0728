import type { AnchorHTMLAttributes } from 'react';
import { linkClick } from '../router';

/** An in-app link: a real `<a href>` (opens in a new tab, crawlable) that navigates without a reload. */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  return <a href={to} onClick={linkClick(to)} {...rest} />;
}
