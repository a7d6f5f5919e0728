import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from '../api/api-error';
import { type Answer, api } from '../api/client';
import { ConfirmDialog } from '../components/confirm-dialog';
import { type Firing, onFiring } from '../components/inbox-events';
import { Link } from '../components/link';
import { type ActiveNotifications, activeLimitText } from '../components/plan-limit';
import { RequireSession } from '../components/require-session';
import { TickerLink } from '../components/ticker-link';
import { showToast } from '../components/toast';
import { setUnreadCount } from '../components/unread-count';
import { formatDateTime, formatNumber, formatPercent } from '../format/number-format';
import { operatorSign } from '../format/price-target';
import { useLocale } from '../i18n';
import { useTr } from '../tr';

type Alert = Answer<'/api/notifications', 'get'>['data'][number];
const AlertDialog = lazy(() => import('../components/alert-dialog'));
/** Tickers linked under a firing in the inbox: a watchlist's firing may name hundreds of assets. */
const ASSETS_SHOWN = 5;

export default function NotificationsScreen() {
  return (
    <RequireSession>
      <Notifications />
    </RequireSession>
  );
}

function Notifications() {
  const t = useTr();
  const locale = useLocale();
  const [alerts, setAlerts] = useState<Alert[] | null>(null);
  const [active, setActive] = useState<ActiveNotifications | undefined>(undefined);
  const [inbox, setInbox] = useState<Firing[]>([]);
  const [unread, setUnread] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [newAlert, setNewAlert] = useState(false);
  const [deleting, setDeleting] = useState<Alert | null>(null);

  const loadAlerts = useCallback(() => {
    api.get('/api/notifications', { query: { per_page: '100' } }).then((p) => {
      setAlerts(p.data);
      setActive(p.active_notifications);
    }, setError);
  }, []);
  // The firings the inbox holds (by id), and those the stream delivered while a read of the inbox is under way
  // (null: none is): a firing counts as unread once, whether the read, the stream or both bring it.
  const known = useRef(new Set<number>());
  const liveSinceLoad = useRef<Firing[] | null>(null);
  const loadInbox = useCallback(() => {
    liveSinceLoad.current = [];
    api.get('/api/notification-events', { query: { per_page: '50' } }).then((p) => {
      const listed = new Set(p.data.map((f) => f.id));
      const newest = Math.max(0, ...p.data.map((f) => f.id));
      // A firing the stream brought while the read was under way and that the read did not see yet stays on top,
      // newest first as the page and the live path order them. (One older than the page's newest is in its counts.)
      const extra = (liveSinceLoad.current ?? []).filter((f) => !listed.has(f.id) && f.id > newest).sort((a, b) => b.id - a.id);
      liveSinceLoad.current = null;
      known.current = new Set([...listed, ...extra.map((f) => f.id)]);
      setInbox([...extra, ...p.data]);
      setUnread(((p.meta as { unread_count?: number }).unread_count ?? 0) + extra.filter((f) => !f.read_at).length);
    }, setError);
  }, []);

  useEffect(() => {
    loadAlerts();
    loadInbox();
  }, [loadAlerts, loadInbox]);

  // Live: a firing from the stream joins the top of the inbox at once (once: one the inbox already lists, delivered
  // again, changes nothing); the alert's state (a price target switches itself off) is read again.
  useEffect(
    () =>
      onFiring((f) => {
        liveSinceLoad.current?.push(f);
        if (!known.current.has(f.id)) {
          known.current.add(f.id);
          setInbox((list) => (list.some((x) => x.id === f.id) ? list : [f, ...list]));
          if (!f.read_at) setUnread((n) => n + 1);
        }
        loadAlerts();
      }),
    [loadAlerts],
  );

  const act = async (what: () => Promise<unknown>) => {
    try {
      await what();
    } catch (err) {
      showToast(describeError(err, locale), 'error');
    }
    loadAlerts();
  };

  const markAllRead = async () => {
    try {
      const r = await api.post('/api/notification-events/read', { body: { all: true } });
      setUnread(r.data?.unread_count ?? 0);
      setUnreadCount(r.data?.unread_count ?? 0);
      setInbox((list) => list.map((f) => ({ ...f, read_at: f.read_at ?? new Date().toISOString() })));
    } catch (err) {
      showToast(describeError(err, locale), 'error');
    }
  };

  /** What the alert watches, as the list names it: its own name, else the asset's ticker or the list's name. */
  const alertName = (a: Alert) => a.name ?? a.target.ticker ?? a.target.name ?? `#${a.target.id}`;
  const describeCondition = (a: Alert) =>
    a.type === 'price-target'
      ? `${t('цена', 'price')} ${operatorSign(a.condition.operator)} ${formatNumber(a.condition.value, locale, 8)}`
      : `|${t('изменение за 24 ч', '24h change')}| ≥ ${formatPercent(a.condition.value, locale, false)}${a.condition.cooldown_minutes ? ` · ${a.condition.cooldown_minutes === 60 ? t('раз в час', 'hourly') : t('раз в день', 'daily')}` : ''}`;

  return (
    <section data-testid="notifications">
      <h1>{t('Уведомления', 'Notifications')}</h1>
      {error ? (
        <p className="form-error" role="alert" data-testid="notifications-error">
          {describeError(error, locale)}
        </p>
      ) : null}
      <div className="grid">
        <div className="panel">
          <h2>
            {t('Входящие', 'Inbox')} <span className="muted" data-testid="inbox-unread">{unread}</span>
          </h2>
          <button type="button" className="secondary" data-testid="inbox-mark-all-read" disabled={unread === 0} onClick={() => void markAllRead()}>
            {t('Прочитать все', 'Mark all read')}
          </button>
          <ul className="list" data-testid="inbox-list">
            {inbox.map((f) => (
              <li key={f.id} className={f.read_at ? '' : 'unread'} data-testid="inbox-item" data-notification-id={f.notification_id}>
                <div>
                  <div data-testid="inbox-item-title">{f.title}</div>
                  <div className="muted small">{f.body}</div>
                  {/* An account notice (a declined charge) leads to the screen where it is settled. */}
                  {f.path === '/subscription' && (
                    <Link to="/subscription" className="small" data-testid="inbox-item-subscription">
                      {t('Открыть подписку', 'Open subscription')}
                    </Link>
                  )}
                  {f.assets.length > 0 && (
                    <div className="small inbox-assets">
                      {f.assets.slice(0, ASSETS_SHOWN).map((x) => (
                        <TickerLink key={`${x.type}:${x.id}`} type={x.type} ticker={x.ticker} testId="inbox-asset" />
                      ))}
                      {f.assets.length > ASSETS_SHOWN && <span className="muted">+{f.assets.length - ASSETS_SHOWN}</span>}
                    </div>
                  )}
                </div>
                <span className="muted small">{formatDateTime(f.fired_at, locale)}</span>
              </li>
            ))}
            {inbox.length === 0 && <li className="muted">{t('Пока ничего не срабатывало', 'Nothing has fired yet')}</li>}
          </ul>
        </div>
        <div className="panel">
          <div className="screen-head">
            <h2>{t('Мои уведомления', 'My alerts')}</h2>
            <button type="button" className="small-button" data-testid="alert-new" onClick={() => setNewAlert(true)}>
              {t('Новое уведомление', 'New alert')}
            </button>
          </div>
          <p className="muted small" data-testid="watchlists-link">
            {t('Уведомление на весь список активов ставится на экране ', 'An alert on a whole list of assets is set on the ')}
            <Link to="/watchlists">{t('«Списки наблюдения»', 'Watchlists screen')}</Link>.
          </p>
          {activeLimitText(active, locale) && (
            <p className="muted small" data-testid="alerts-plan-limit">
              {activeLimitText(active, locale)}
            </p>
          )}
          <ul className="list" data-testid="alerts-list">
            {alerts?.map((a) => (
              <li key={a.id} data-testid="alert-item" data-alert-id={a.id} data-active={a.is_active ? 'true' : 'false'}>
                <div style={{ flex: '1 1 200px' }}>
                  <strong>{alertName(a)}</strong>
                  <div className="muted small">
                    {a.target.type === 'asset' && a.target.ticker && a.target.asset_type ? (
                      <TickerLink type={a.target.asset_type} ticker={a.target.ticker} testId="alert-ticker" />
                    ) : (
                      `${a.target.type === 'portfolio' ? t('портфель', 'portfolio') : t('список', 'watchlist')} ${a.target.name ?? a.target.id}`
                    )}{' '}
                    · {describeCondition(a)}
                  </div>
                  {a.paused && (
                    <div className="muted small" data-testid="alert-paused">
                      {t('На паузе: бесплатный тариф его не включает. После оплаты оно снова заработает.', 'Paused: the free plan does not include it. It works again once you pay.')}
                    </div>
                  )}
                </div>
                <label className="small">
                  <input type="checkbox" data-testid="alert-toggle" checked={a.is_active} onChange={() => void act(() => api.post('/api/switch-notification/{id}', { path: { id: a.id } }))} />{' '}
                  {a.is_active ? t('вкл.', 'on') : t('выкл.', 'off')}
                </label>
                <button
                  type="button"
                  className="danger small-button"
                  data-testid="alert-delete"
                  aria-label={t(`Удалить уведомление «${alertName(a)}»`, `Delete the alert "${alertName(a)}"`)}
                  onClick={() => setDeleting(a)}
                >
                  {t('Удалить', 'Delete')}
                </button>
              </li>
            ))}
            {alerts?.length === 0 && (
              <li className="muted">
                {t('Создайте уведомление на любой актив кнопкой выше, из строки скринера, портфеля или списка.', 'Create an alert on any asset with the button above, from a screener row, a portfolio or a watchlist.')}
              </li>
            )}
          </ul>
        </div>
      </div>
      {deleting && (
        <ConfirmDialog
          title={t('Удаление уведомления', 'Deleting the alert')}
          message={t(`Удалить уведомление «${alertName(deleting)}» (${describeCondition(deleting)})?`, `Delete the alert "${alertName(deleting)}" (${describeCondition(deleting)})?`)}
          confirmLabel={t('Удалить', 'Delete')}
          onConfirm={async () => {
            await api.delete('/api/notifications/{id}', { path: { id: deleting.id } });
            loadAlerts();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
      {newAlert && (
        <Suspense fallback={null}>
          <AlertDialog target={null} onClose={() => setNewAlert(false)} onCreated={loadAlerts} />
        </Suspense>
      )}
    </section>
  );
}
