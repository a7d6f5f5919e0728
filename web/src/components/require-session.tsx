import { Fragment, type ReactNode } from 'react';
import { useSession } from '../session';
import { useTr } from '../tr';
import { Link } from './link';

/**
 * Signed-in screens: without a session, a clear way to sign in instead of a failing request. Keyed by the user, so
 * another user signing in (in another tab: the session is shared) remounts the screen: nothing the previous user's
 * requests loaded stays on screen, and what it loads again goes with the new token.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const t = useTr();
  if (session) return <Fragment key={session.userId}>{children}</Fragment>;
  return (
    <div className="panel" data-testid="sign-in-required">
      <h2>{t('Нужно войти', 'Sign in required')}</h2>
      <p>{t('Этот раздел доступен после входа.', 'This section is available after signing in.')}</p>
      <Link to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} data-testid="sign-in-link">
        {t('Войти', 'Sign in')}
      </Link>
    </div>
  );
}
