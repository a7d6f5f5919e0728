import { lazy, Suspense, useEffect } from 'react';
import { ErrorBoundary } from './components/error-boundary';
import { Link } from './components/link';
import { Toasts } from './components/toast';
import { useUnreadCount } from './components/unread-count';
import { setLocale, useLocale } from './i18n';
import { useRoute } from './router';
import { ScreenerScreen } from './screens/screener.screen';
import { signOut, useSession } from './session';
import { useTr } from './tr';

/**
 * Signs out after this browser's push subscription is dropped: otherwise the next person signing in here would
 * get the previous user's notifications. Loaded on demand (most sessions never subscribe); sign-out happens
 * whatever the server says.
 */
async function signOutEverywhere(): Promise<void> {
  try {
    const { unsubscribeFromPush } = await import('./push/web-push');
    await unsubscribeFromPush();
  } catch {
    // Offline or no push support: the subscription's next message finds no session here to show it for.
  } finally {
    signOut();
  }
}

// The screener is the page anonymous traffic opens: it is in the main chunk; every other screen loads on demand.
const SignInScreen = lazy(() => import('./screens/sign-in.screen'));
const PortfoliosScreen = lazy(() => import('./screens/portfolios.screen'));
const NotificationsScreen = lazy(() => import('./screens/notifications.screen'));
const WatchlistsScreen = lazy(() => import('./screens/watchlists.screen'));
const ChatScreen = lazy(() => import('./screens/chat.screen'));
const SubscriptionScreen = lazy(() => import('./screens/subscription.screen'));
const NotificationSettingsScreen = lazy(() => import('./screens/notification-settings.screen'));
const AssetScreen = lazy(() => import('./screens/asset.screen'));
const NotificationStream = lazy(() => import('./components/notification-stream'));

function screenFor(path: string) {
  if (path === '/' || path === '/screener') return <ScreenerScreen />;
  if (path === '/sign-in') return <SignInScreen />;
  if (path === '/portfolios' || path.startsWith('/portfolios/')) return <PortfoliosScreen />;
  if (path === '/watchlists') return <WatchlistsScreen />;
  if (path === '/notifications') return <NotificationsScreen />;
  if (path === '/chat' || path.startsWith('/chat/')) return <ChatScreen />;
  if (path === '/subscription') return <SubscriptionScreen />;
  if (path === '/settings/notifications') return <NotificationSettingsScreen />;
  if (path.startsWith('/assets/')) return <AssetScreen />;
  return <NotFound />;
}

function NotFound() {
  const t = useTr();
  return (
    <div className="panel" data-testid="not-found">
      <h1>{t('Страница не найдена', 'Page not found')}</h1>
      <Link to="/">{t('К скринеру', 'Back to the screener')}</Link>
    </div>
  );
}

export function App() {
  const route = useRoute();
  const session = useSession();
  const locale = useLocale();
  const t = useTr();
  const unread = useUnreadCount();
  // [path, label, test id]
  const nav: [string, string, string][] = [
    ['/', t('Скринер', 'Screener'), 'nav-screener'],
    ['/portfolios', t('Портфели', 'Portfolios'), 'nav-portfolios'],
    ['/watchlists', t('Списки наблюдения', 'Watchlists'), 'nav-watchlists'],
    ['/notifications', t('Уведомления', 'Notifications'), 'nav-notifications'],
    ['/chat', t('Чат', 'Chat'), 'nav-chat'],
    ['/subscription', t('Подписка', 'Subscription'), 'nav-subscription'],
    ['/settings/notifications', t('Настройки', 'Settings'), 'nav-settings'],
  ];
  const active = (to: string) => (to === '/' ? route.path === '/' : route.path.startsWith(to));
  // The tab's title names the screen open in it (the app's name alone where no nav entry is active).
  const appName = t('Инвест-трекер', 'Invest tracker');
  const screenName = nav.find(([to]) => active(to))?.[1];
  const title = screenName ? `${screenName} · ${appName}` : appName;
  useEffect(() => {
    document.title = title;
  }, [title]);
  return (
    <>
      <header className="topbar">
        <Link to="/" className="brand">
          {t('Инвест-трекер', 'Invest tracker')}
        </Link>
        <nav data-testid="nav">
          {nav.map(([to, label, testId]) => (
            <Link key={to} to={to} className={active(to) ? 'active' : undefined} data-testid={testId}>
              {label}
              {to === '/notifications' && session && unread !== null && unread > 0 && (
                <>
                  {' '}
                  <span className="badge" data-testid="nav-unread" data-count={unread}>
                    {unread > 99 ? '99+' : unread}
                  </span>
                  <span className="sr-only">{t(' непрочитанных', ' unread')}</span>
                </>
              )}
            </Link>
          ))}
        </nav>
        <div className="topbar-end">
          <button type="button" className="linklike" data-testid="locale-toggle" onClick={() => setLocale(locale === 'ru' ? 'en' : 'ru')} aria-label="Language">
            {locale === 'ru' ? 'EN' : 'RU'}
          </button>
          {session ? (
            <span className="user">
              <span data-testid="signed-in-user">{session.userId}</span>{' '}
              <button type="button" className="linklike" data-testid="sign-out" onClick={() => void signOutEverywhere()}>
                {t('Выйти', 'Sign out')}
              </button>
            </span>
          ) : (
            <Link to="/sign-in" data-testid="nav-sign-in">
              {t('Войти', 'Sign in')}
            </Link>
          )}
        </div>
      </header>
      <main>
        <ErrorBoundary resetKey={route.path}>
          <Suspense fallback={<p className="loading">{t('Загрузка…', 'Loading…')}</p>}>{screenFor(route.path)}</Suspense>
        </ErrorBoundary>
      </main>
      {session && (
        <Suspense fallback={null}>
          <NotificationStream key={session.token} />
        </Suspense>
      )}
      <Toasts />
    </>
  );
}
