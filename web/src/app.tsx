import { lazy, Suspense, useEffect, useState } from 'react';
import { ErrorBoundary } from './components/error-boundary';
import { Link } from './components/link';
import { Toasts } from './components/toast';
import { useUnreadCount } from './components/unread-count';
import { useEscape } from './components/use-escape';
import { useMediaQuery } from './components/use-media-query';
import { setLocale, useLocale } from './i18n';
import { useRoute } from './router';
import { ScreenerScreen } from './screens/screener.screen';
import { signOut, useSession } from './session';
import { nextTheme, setTheme, type ThemeChoice, useTheme } from './theme';
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

/** Width at and under which the navigation folds behind the menu button (the same 640 px as styles.css). */
const PHONE_QUERY = '(max-width: 640px)';

/** The unread count as a badge, with words for screen readers. */
function UnreadBadge({ count }: { count: number }) {
  const t = useTr();
  return (
    <>
      {' '}
      <span className="badge" data-testid="nav-unread" data-count={count}>
        {count > 99 ? '99+' : count}
      </span>
      <span className="sr-only">{t(' непрочитанных', ' unread')}</span>
    </>
  );
}

/** Icons of the theme switch: the device's setting (half a circle), light (a sun), dark (a moon). */
function ThemeIcon({ theme }: { theme: ThemeChoice }) {
  return (
    <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" focusable="false">
      {theme === 'system' && (
        <>
          <circle cx="10" cy="10" r="7" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M10 3a7 7 0 0 1 0 14z" fill="currentColor" />
        </>
      )}
      {theme === 'light' && (
        <>
          <circle cx="10" cy="10" r="3.5" fill="currentColor" />
          <path d="M10 1.5v3M10 15.5v3M1.5 10h3M15.5 10h3M4 4l2.1 2.1M13.9 13.9 16 16M4 16l2.1-2.1M13.9 6.1 16 4" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
        </>
      )}
      {theme === 'dark' && <path d="M15.5 13.2A7 7 0 0 1 6.8 4.5 7 7 0 1 0 15.5 13.2z" fill="currentColor" />}
    </svg>
  );
}

export function App() {
  const route = useRoute();
  const session = useSession();
  const locale = useLocale();
  const theme = useTheme();
  const t = useTr();
  const unread = useUnreadCount();
  const phone = useMediaQuery(PHONE_QUERY);
  // On a phone the navigation is a list the menu button opens; choosing a screen (or Escape) folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route.path, phone]);
  useEscape(() => setMenuOpen(false));
  const showUnread = session !== null && unread !== null && unread > 0;
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
  const themeName = { system: t('как в системе', 'system'), light: t('светлая', 'light'), dark: t('тёмная', 'dark') }[theme];
  return (
    <>
      <header className="topbar">
        {/* A phone's bar is one line: the menu button carries the unread badge while the list is folded. */}
        <button
          type="button"
          className="nav-toggle"
          data-testid="nav-menu"
          aria-expanded={menuOpen}
          aria-controls="site-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
            <path d="M3 5h14M3 10h14M3 15h14" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
          {/* Words, not aria-label: the name then holds the badge's count too ("Меню 2 непрочитанных"). */}
          <span className="sr-only">{t('Меню', 'Menu')}</span>
          {phone && showUnread && <UnreadBadge count={unread} />}
        </button>
        <Link to="/" className="brand">
          {appName}
        </Link>
        <nav id="site-nav" data-testid="nav" aria-label={t('Разделы', 'Sections')} className={menuOpen ? 'open' : undefined} onClick={() => setMenuOpen(false)}>
          {nav.map(([to, label, testId]) => (
            <Link key={to} to={to} className={active(to) ? 'active' : undefined} aria-current={active(to) ? 'page' : undefined} data-testid={testId}>
              {label}
              {to === '/notifications' && !phone && showUnread && <UnreadBadge count={unread} />}
            </Link>
          ))}
        </nav>
        <div className="topbar-end">
          <button
            type="button"
            className="linklike"
            data-testid="locale-toggle"
            lang={locale === 'ru' ? 'en' : 'ru'}
            aria-label={locale === 'ru' ? 'EN: English' : 'RU: русский'}
            onClick={() => setLocale(locale === 'ru' ? 'en' : 'ru')}
          >
            {locale === 'ru' ? 'EN' : 'RU'}
          </button>
          <button
            type="button"
            className="icon-button"
            data-testid="theme-toggle"
            data-theme-choice={theme}
            aria-label={t(`Тема: ${themeName}`, `Theme: ${themeName}`)}
            title={t(`Тема: ${themeName} (нажмите, чтобы сменить)`, `Theme: ${themeName} (click to change)`)}
            onClick={() => setTheme(nextTheme(theme))}
          >
            <ThemeIcon theme={theme} />
          </button>
          {session ? (
            <span className="user">
              <span className="user-id" data-testid="signed-in-user" title={session.userId}>
                {session.userId}
              </span>{' '}
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
