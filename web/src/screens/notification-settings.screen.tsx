import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, describeError, inputError } from '../api/api-error';
import { type Answer, api, type BodyOf } from '../api/client';
import { Field, FormError } from '../components/form-bits';
import { setInAppToasts } from '../components/in-app-toasts';
import { RequireSession } from '../components/require-session';
import { formatDateTime } from '../format/number-format';
import { PushError, pushProblemText, pushSubscribed, pushSupported, subscribeToPush, unsubscribeFromPush } from '../push/web-push';
import { useLocale } from '../i18n';
import { useTr } from '../tr';

type Settings = Answer<'/api/notification-settings', 'get'>['data'];
type Channel = keyof Settings['channels'];
type SettingsChange = BodyOf<'/api/notification-settings', 'put'>;

/** The zone the delivery service assumes for a user who never chose one. */
const SERVICE_DEFAULT_ZONE = 'Europe/Moscow';
const CHANNELS: Channel[] = ['in_app', 'telegram', 'push', 'email'];

function browserZone(): string | null {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

/** Every zone this browser knows (for the select), with `current` in it whatever the browser says. */
function zones(current: string): string[] {
  let list: string[] = [];
  try {
    list = Intl.supportedValuesOf('timeZone');
  } catch {
    /* an older browser: the current zone alone */
  }
  return list.includes(current) ? list : [current, ...list];
}

/** The form's fields: what the person edits before saving. */
interface Draft {
  channels: Settings['channels'];
  quiet: boolean;
  quietStart: string;
  quietEnd: string;
  timeZone: string;
  language: 'ru' | 'en';
  email: string;
}

function draftOf(s: Settings, zone: string): Draft {
  return {
    channels: { ...s.channels },
    quiet: s.quiet_hours !== null,
    quietStart: s.quiet_hours?.start ?? '23:00',
    quietEnd: s.quiet_hours?.end ?? '08:00',
    timeZone: zone,
    language: s.language,
    email: s.email.address ?? '',
  };
}

export default function NotificationSettingsScreen() {
  return (
    <RequireSession>
      <NotificationSettings />
    </RequireSession>
  );
}

/**
 * Where notifications go besides the inbox (GET/PUT /api/notification-settings): channels on or off, quiet hours in
 * a time zone (the browser's until one is saved), the language of the messages, the e-mail address and whether it
 * is confirmed, linking Telegram, and the last failed delivery of each channel.
 */
function NotificationSettings() {
  const t = useTr();
  const locale = useLocale();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [zoneFromBrowser, setZoneFromBrowser] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [savedAt, setSavedAt] = useState<number | null>(null);

  /** Shows what the server holds; the form too unless `keepDraft` (a refresh of the channel states while editing). */
  const show = useCallback((s: Settings, keepDraft = false) => {
    setSettings(s);
    // The live toasts follow the saved setting at once, not at the stream's next reconnect.
    setInAppToasts(s.channels.in_app);
    if (keepDraft) return;
    // The service's default zone is its guess; the browser knows better until the person saves one.
    const fromBrowser = s.time_zone === SERVICE_DEFAULT_ZONE ? browserZone() : null;
    setZoneFromBrowser(fromBrowser !== null && fromBrowser !== s.time_zone);
    setDraft(draftOf(s, fromBrowser ?? s.time_zone));
  }, []);

  const load = useCallback(
    (keepDraft = false) =>
      api.get('/api/notification-settings').then(
        (r) => {
          setLoadError(null);
          show(r.data, keepDraft);
          return r.data;
        },
        (err: unknown) => {
          setLoadError(err);
          return null;
        },
      ),
    [show],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const save = async () => {
    if (!draft || !settings) return;
    setError(null);
    if (draft.quiet && draft.quietStart === draft.quietEnd) {
      return setError(inputError({ quiet_hours: [t('Начало и конец тихих часов должны различаться.', 'Quiet hours must start and end at different times.')] }));
    }
    const email = draft.email.trim();
    const change: SettingsChange = {
      channels: draft.channels,
      quiet_hours: draft.quiet ? { start: draft.quietStart, end: draft.quietEnd } : null,
      time_zone: draft.timeZone,
      language: draft.language,
      // Only a changed address: the same one keeps its confirmation anyway, but need not be sent.
      ...(email !== (settings.email.address ?? '') ? { email: email || null } : {}),
    };
    setBusy(true);
    try {
      const r = await api.put('/api/notification-settings', { body: change });
      show(r.data);
      setSavedAt(Date.now());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (loadError && !settings) {
    return (
      <section data-testid="notification-settings">
        <h1>{t('Настройки уведомлений', 'Notification settings')}</h1>
        <p className="form-error" role="alert" data-testid="settings-error">
          {describeError(loadError, locale)}
        </p>
      </section>
    );
  }
  if (!settings || !draft) return <p className="loading">{t('Загрузка…', 'Loading…')}</p>;

  const channelName: Record<Channel, string> = {
    in_app: t('Всплывающие уведомления в приложении', 'Pop-ups in the app'),
    telegram: 'Telegram',
    push: t('Web Push (уведомления браузера)', 'Web Push (browser notifications)'),
    email: t('Электронная почта', 'E-mail'),
  };
  const set = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    setSavedAt(null);
  };

  return (
    <section data-testid="notification-settings" data-loaded="true">
      <h1>{t('Настройки уведомлений', 'Notification settings')}</h1>
      <form
        data-testid="settings-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div className="grid settings-grid">
          <div className="panel" role="group" aria-labelledby="settings-channels-title">
            <h2 id="settings-channels-title">{t('Каналы', 'Channels')}</h2>
            <p className="muted small">{t('Куда отправлять сработавшие уведомления. Входящие хранят все, даже когда всплывающие выключены.', 'Where fired alerts go. The inbox keeps every one, pop-ups on or off.')}</p>
            {CHANNELS.map((c) => (
              <label key={c} className="check">
                <input type="checkbox" data-testid={`settings-channel-${c}`} checked={draft.channels[c]} onChange={(e) => set({ channels: { ...draft.channels, [c]: e.target.checked } })} />
                {channelName[c]}
              </label>
            ))}
          </div>

          <div className="panel" role="group" aria-labelledby="settings-quiet-title">
            <h2 id="settings-quiet-title">{t('Тихие часы и язык', 'Quiet hours and language')}</h2>
            <label className="check">
              <input type="checkbox" data-testid="settings-quiet-enabled" checked={draft.quiet} onChange={(e) => set({ quiet: e.target.checked })} />
              {t('Включить тихие часы', 'Use quiet hours')}
            </label>
            <p className="muted small">
              {t('Что сработает в тихие часы, придёт одним сообщением, когда они закончатся.', 'What fires during quiet hours arrives as one message when they end.')}
            </p>
            <div className="inline-fields">
              <Field label={t('С', 'From')} name="quiet_hours.start" error={error}>
                <input type="time" data-testid="settings-quiet-start" value={draft.quietStart} disabled={!draft.quiet} required={draft.quiet} onChange={(e) => set({ quietStart: e.target.value })} />
              </Field>
              <Field label={t('До', 'Until')} name="quiet_hours.end" error={error}>
                <input type="time" data-testid="settings-quiet-end" value={draft.quietEnd} disabled={!draft.quiet} required={draft.quiet} onChange={(e) => set({ quietEnd: e.target.value })} />
              </Field>
            </div>
            {/* About both times at once ("start and end must differ"); each time's own messages are beside it. */}
            {(error instanceof ApiError ? (error.fieldErrors.quiet_hours ?? []) : []).map((m) => (
              <p key={m} className="field-error" role="alert" data-testid="field-error-quiet_hours">
                {m}
              </p>
            ))}
            <Field label={t('Часовой пояс', 'Time zone')} name="time_zone" error={error}>
              <TimeZoneSelect value={draft.timeZone} onChange={(timeZone) => set({ timeZone })} />
              {zoneFromBrowser && draft.timeZone === browserZone() && (
                <span className="muted small" data-testid="settings-time-zone-browser">
                  {t('Пояс вашего браузера; сохраните, чтобы применить.', "Your browser's zone; save to use it.")}
                </span>
              )}
            </Field>
            <Field label={t('Язык сообщений', 'Language of messages')} name="language" error={error}>
              <select data-testid="settings-language" value={draft.language} onChange={(e) => set({ language: e.target.value as 'ru' | 'en' })}>
                <option value="ru">Русский</option>
                <option value="en">English</option>
              </select>
            </Field>
          </div>

          <div className="panel" role="group" aria-labelledby="settings-email-title">
            <h2 id="settings-email-title">{t('Электронная почта', 'E-mail')}</h2>
            <Field label={t('Адрес', 'Address')} name="email" error={error}>
              <input type="email" data-testid="settings-email" value={draft.email} maxLength={254} autoComplete="email" onChange={(e) => set({ email: e.target.value })} />
            </Field>
            {settings.email.address && (
              <p className={`small ${settings.email.confirmed ? 'ok' : 'muted'}`} data-testid="settings-email-state" data-confirmed={settings.email.confirmed ? 'true' : 'false'}>
                {settings.email.confirmed
                  ? t(`${settings.email.address} подтверждён`, `${settings.email.address} is confirmed`)
                  : t(`${settings.email.address} не подтверждён: откройте ссылку из письма. До этого писем с уведомлениями не будет.`, `${settings.email.address} is not confirmed: follow the link in the e-mail we sent. No alerts go there until then.`)}
              </p>
            )}
            <Failures settings={settings} channel="email" />
          </div>
        </div>

        <FormError error={error} fields={['quiet_hours', 'time_zone', 'language', 'email']} testId="settings-error" />
        <div className="actions settings-actions">
          <button type="submit" data-testid="settings-save" disabled={busy}>
            {t('Сохранить', 'Save')}
          </button>
          {savedAt !== null && (
            <span className="muted small" data-testid="settings-saved" role="status">
              {t('Сохранено', 'Saved')}
            </span>
          )}
        </div>
      </form>

      <div className="grid settings-grid">
        <TelegramPanel settings={settings} onChanged={() => load(true)} />
        <PushPanel settings={settings} onChanged={() => load(true)} />
      </div>
    </section>
  );
}

/** A select of every time zone (a person in Vladivostok types nothing). */
function TimeZoneSelect({ value, onChange }: { value: string; onChange: (zone: string) => void }) {
  const list = useMemo(() => zones(value), [value]);
  return (
    <select data-testid="settings-time-zone" value={value} onChange={(e) => onChange(e.target.value)}>
      {list.map((z) => (
        <option key={z} value={z}>
          {z.replace(/_/g, ' ')}
        </option>
      ))}
    </select>
  );
}

/** "Last delivery failed: …" lines of one channel. */
function Failures({ settings, channel }: { settings: Settings; channel: Channel }) {
  const t = useTr();
  const locale = useLocale();
  const failures = settings.last_failures.filter((f) => f.channel === channel);
  if (!failures.length) return null;
  return (
    <>
      {failures.map((f) => (
        <p key={f.channel} className="small field-error" data-testid="settings-failure" data-channel={f.channel}>
          {t('Последняя доставка не удалась', 'Last delivery failed')} ({formatDateTime(f.at, locale)}): {f.reason}
        </p>
      ))}
    </>
  );
}

/**
 * Telegram: linked, not linked, or blocked (the bot was blocked by the user: the chat was unlinked). "Connect"
 * asks for a one-time link to the bot and opens it; the screen then reads the settings again until the chat is
 * linked (the person sends /start in Telegram) or the link expires, and when the tab gets the focus back.
 */
function TelegramPanel({ settings, onChanged }: { settings: Settings; onChanged: () => Promise<Settings | null> }) {
  const t = useTr();
  const locale = useLocale();
  const [error, setError] = useState<unknown>(null);
  const [waitingUntil, setWaitingUntil] = useState<number | null>(null);
  const [linkUrl, setLinkUrl] = useState<string | null>(null);
  const linked = settings.telegram.linked;
  const state = linked ? 'linked' : settings.telegram.blocked ? 'blocked' : 'none';
  const onChangedRef = useRef(onChanged);
  onChangedRef.current = onChanged;

  // While a link waits for /start: read again every 2 s (and at once when the person comes back to the tab).
  useEffect(() => {
    if (waitingUntil === null || linked) return;
    const again = () => {
      if (Date.now() > waitingUntil) setWaitingUntil(null);
      else void onChangedRef.current();
    };
    const timer = setInterval(again, 2000);
    const onVisible = () => document.visibilityState === 'visible' && again();
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onVisible);
    };
  }, [waitingUntil, linked]);
  useEffect(() => {
    if (linked) {
      setWaitingUntil(null);
      setLinkUrl(null);
    }
  }, [linked]);

  const connect = async () => {
    setError(null);
    // Opened before the request, in the click: a window opened after an await is a pop-up the browser blocks.
    const tab = window.open('', '_blank');
    try {
      const r = await api.post('/api/notification-channels/telegram/link');
      setLinkUrl(r.data.url);
      setWaitingUntil(new Date(r.data.expires_at).getTime());
      if (tab) {
        tab.opener = null;
        tab.location.href = r.data.url;
      }
    } catch (err) {
      tab?.close();
      setError(err);
    }
  };

  return (
    <div className="panel" data-testid="telegram-settings">
      <h2>Telegram</h2>
      <p data-testid="telegram-state" data-state={state} className={state === 'blocked' ? 'field-error' : state === 'linked' ? 'ok' : 'muted'}>
        {state === 'linked'
          ? t('Подключён: уведомления приходят в чат с ботом.', 'Linked: alerts arrive in the chat with the bot.')
          : state === 'blocked'
            ? t('Бот заблокирован — подключите снова.', 'The bot was blocked — connect again.')
            : t('Не подключён.', 'Not linked.')}
        {linked && settings.telegram.muted_until && new Date(settings.telegram.muted_until).getTime() > Date.now() && (
          <span className="muted small" data-testid="telegram-muted">
            {' '}
            {t('Без звука до', 'Muted until')} {formatDateTime(settings.telegram.muted_until, locale)}
          </span>
        )}
      </p>
      <button type="button" data-testid="telegram-link" className={linked ? 'secondary' : undefined} onClick={() => void connect()}>
        {linked ? t('Подключить другой чат', 'Link another chat') : state === 'blocked' ? t('Подключить снова', 'Connect again') : t('Подключить Telegram', 'Connect Telegram')}
      </button>
      {linkUrl && !linked && (
        <p className="small muted" data-testid="telegram-waiting">
          {t('Откройте бота и нажмите «Старт». Если окно не открылось: ', 'Open the bot and press Start. If no window opened: ')}
          <a href={linkUrl} target="_blank" rel="noopener noreferrer" data-testid="telegram-link-url">
            {t('ссылка на бота', 'link to the bot')}
          </a>
          .
        </p>
      )}
      <FormError error={error} testId="telegram-error" />
      <Failures settings={settings} channel="telegram" />
    </div>
  );
}

/**
 * Web Push on this device: turning it on registers the service worker, asks the browser's permission, subscribes
 * and stores the subscription (src/push/web-push.ts); off removes it. The count of the user's devices beside it.
 */
function PushPanel({ settings, onChanged }: { settings: Settings; onChanged: () => Promise<Settings | null> }) {
  const t = useTr();
  const locale = useLocale();
  const supported = pushSupported();
  const [here, setHere] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    pushSubscribed().then(setHere, () => setHere(false));
  }, []);

  const toggle = async () => {
    setProblem(null);
    setBusy(true);
    try {
      if (here) await unsubscribeFromPush();
      else await subscribeToPush();
      setHere(!here);
      await onChanged();
    } catch (err) {
      setProblem(err instanceof PushError ? pushProblemText(err.problem, locale) : describeError(err, locale));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="panel" data-testid="push-settings">
      <h2>{t('Уведомления браузера', 'Browser notifications')}</h2>
      <p className="muted" data-testid="push-state" data-devices={settings.push.devices} data-here={here ? 'true' : 'false'}>
        {here
          ? t('Включены на этом устройстве.', 'On for this device.')
          : supported
            ? t('Выключены на этом устройстве.', 'Off for this device.')
            : pushProblemText('unsupported', locale)}{' '}
        {settings.push.devices > 0
          ? t(`Устройств с уведомлениями: ${settings.push.devices}.`, `Devices with notifications: ${settings.push.devices}.`)
          : t('Ни одно устройство не подключено.', 'No device is set up.')}
      </p>
      {supported && here !== null && (
        <button type="button" data-testid="push-toggle" className={here ? 'secondary' : undefined} disabled={busy} onClick={() => void toggle()}>
          {here ? t('Выключить на этом устройстве', 'Turn off for this device') : t('Включить на этом устройстве', 'Turn on for this device')}
        </button>
      )}
      {problem && (
        <p className="form-error" role="alert" data-testid="push-error">
          {problem}
        </p>
      )}
      <Failures settings={settings} channel="push" />
    </div>
  );
}
