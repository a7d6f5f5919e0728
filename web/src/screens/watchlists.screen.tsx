import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { describeError, inputError } from '../api/api-error';
import { type Answer, api, newKey } from '../api/client';
import { assetPath } from '../asset-path';
import { AssetPicker, assetTypeName, type FoundAsset } from '../components/asset-picker';
import { ConfirmDialog } from '../components/confirm-dialog';
import { Field, FormError } from '../components/form-bits';
import { Link } from '../components/link';
import { RequireSession } from '../components/require-session';
import { formatMoney, formatPercent, type Locale } from '../format/number-format';
import { countOf, type PluralForms } from '../format/plural';
import { useLocale } from '../i18n';
import { useTr } from '../tr';

type Watchlist = Answer<'/api/watchlists', 'get'>['data'][number];
type Item = Watchlist['items'][number];
const AlertDialog = lazy(() => import('../components/alert-dialog'));

/** Items of a list: "1 актив", "3 актива", "5 активов" / "1 asset", "2 assets". */
const ASSET_FORMS: Record<Locale, PluralForms> = {
  ru: { one: 'актив', few: 'актива', many: 'активов', other: 'актива' },
  en: { one: 'asset', other: 'assets' },
};

/** Prices move all day: the screen reads them again this often while it is open and visible. */
const REFRESH_MS = 60_000;

export default function WatchlistsScreen() {
  return (
    <RequireSession>
      <Watchlists />
    </RequireSession>
  );
}

function Watchlists() {
  const t = useTr();
  const locale = useLocale();
  const [lists, setLists] = useState<Watchlist[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [alertFor, setAlertFor] = useState<Watchlist | null>(null);

  const load = useCallback(() => {
    api.get('/api/watchlists').then((r) => {
      setLists(r.data);
      setError(null);
    }, setError);
  }, []);
  useEffect(() => {
    load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') load();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  return (
    <section data-testid="watchlists">
      <h1>{t('Списки наблюдения', 'Watchlists')}</h1>
      {error ? (
        <p className="form-error" role="alert" data-testid="watchlists-error">
          {describeError(error, locale)}
        </p>
      ) : null}
      {lists === null && !error && <p className="loading">{t('Загрузка…', 'Loading…')}</p>}
      {lists?.length === 0 && (
        <div className="panel" data-testid="watchlists-empty">
          <h2>{t('Пока ни одного списка', 'No watchlists yet')}</h2>
          <p className="muted">
            {t(
              'Список наблюдения собирает активы, за которыми вы следите, но пока не покупаете: их цены и изменение за 24 часа на одном экране. На весь список можно поставить уведомление о резком движении любого из них.',
              'A watchlist gathers the assets you follow without holding them: their prices and 24-hour change on one screen. An alert on the whole list tells you when any of them moves sharply.',
            )}
          </p>
        </div>
      )}
      <CreateWatchlist onCreated={load} />
      {lists?.map((w) => <WatchlistPanel key={w.id} watchlist={w} onChanged={load} onAlert={() => setAlertFor(w)} />)}
      {alertFor && (
        <Suspense fallback={null}>
          <AlertDialog target={{ kind: 'watchlist', id: alertFor.id, label: alertFor.name }} onClose={() => setAlertFor(null)} />
        </Suspense>
      )}
    </section>
  );
}

function CreateWatchlist({ onCreated }: { onCreated: () => void }) {
  const t = useTr();
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // One key per intent: a double click or a retry creates one list.
  const key = useRef(newKey());
  const create = async () => {
    setError(null);
    setBusy(true);
    try {
      await api.post('/api/watchlists', { body: { name: name.trim() }, idempotencyKey: key.current });
      key.current = newKey();
      setName('');
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="filters watchlist-create"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <input
        data-testid="watchlist-name"
        aria-label={t('Название нового списка', 'Name of the new list')}
        placeholder={t('Название списка', 'List name')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        maxLength={100}
      />
      <button type="submit" data-testid="watchlist-create" disabled={busy}>
        {t('Создать список', 'Create list')}
      </button>
      <FormError error={error} testId="watchlist-create-error" />
    </form>
  );
}

/** A market asset opens its page; a custom asset (the user's own) has none. */
function tickerLink(item: Item): string | null {
  if (item.assetable.type === 'custom_asset' || !item.asset) return null;
  return assetPath(item.assetable.type, item.asset.ticker);
}

function tone(v: number | null | undefined): string {
  return v === null || v === undefined || v === 0 ? '' : v > 0 ? 'up' : 'down';
}

function WatchlistPanel({ watchlist: w, onChanged, onAlert }: { watchlist: Watchlist; onChanged: () => void; onAlert: () => void }) {
  const t = useTr();
  const locale = useLocale();
  // What the confirm dialog asks to delete: an item, or the whole list.
  const [deleting, setDeleting] = useState<Item | 'list' | null>(null);
  const label = (item: Item) => item.asset?.ticker ?? `${assetTypeName(item.assetable.type, t)} #${item.assetable.id}`;

  return (
    <div className="panel" data-testid="watchlist-item" data-watchlist-id={w.id}>
      <div className="screen-head watchlist-head">
        <h2 data-testid="watchlist-title">{w.name}</h2>
        <span className="muted small" data-testid="watchlist-count">
          {countOf(locale, w.items.length, ASSET_FORMS)}
        </span>
        <span className="watchlist-actions">
          <button type="button" className="small-button" data-testid="watchlist-create-alert" onClick={onAlert} disabled={w.items.length === 0}>
            {t('Уведомить', 'Alert')}
          </button>
          <button type="button" className="small-button secondary" data-testid="watchlist-delete" onClick={() => setDeleting('list')}>
            {t('Удалить список', 'Delete list')}
          </button>
        </span>
      </div>
      {w.items.length > 0 ? (
        <div className="watchlist-table">
          <table>
            <thead>
              <tr>
                <th>{t('Актив', 'Asset')}</th>
                <th className="num">{t('Цена', 'Price')}</th>
                <th className="num">{t('24\u00a0ч', '24h')}</th>
                <th aria-label={t('Действия', 'Actions')} />
              </tr>
            </thead>
            <tbody>
              {w.items.map((i) => {
                const to = tickerLink(i);
                const change = i.asset?.price_change_percentage_24h ?? null;
                return (
                  <tr key={i.id} data-testid="watchlist-row" data-ticker={i.asset?.ticker ?? ''} data-item-id={i.id}>
                    <td className="wrap">
                      {to ? (
                        <Link to={to} data-testid="watchlist-ticker">
                          <strong>{label(i)}</strong>
                        </Link>
                      ) : (
                        <strong data-testid="watchlist-ticker">{label(i)}</strong>
                      )}
                      <div className="muted small">
                        {i.asset?.name ?? ''}
                        {i.asset?.name ? ' · ' : ''}
                        {assetTypeName(i.assetable.type, t)}
                      </div>
                    </td>
                    <td className="num" data-testid="watchlist-price">
                      {i.asset?.current_rate != null && i.asset.currency ? formatMoney(i.asset.current_rate, i.asset.currency, locale) : '—'}
                    </td>
                    <td className={`num ${tone(change)}`} data-testid="watchlist-change">
                      {formatPercent(change, locale)}
                    </td>
                    <td className="num">
                      <button
                        type="button"
                        className="small-button secondary"
                        data-testid="watchlist-remove"
                        aria-label={t(`Убрать ${label(i)} из списка`, `Remove ${label(i)} from the list`)}
                        title={t('Убрать из списка', 'Remove from the list')}
                        onClick={() => setDeleting(i)}
                      >
                        ×
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted" data-testid="watchlist-no-items">
          {t('В списке пока нет активов: найдите акцию, облигацию, фонд или монету по тикеру, названию или ISIN.', 'No assets in the list yet: find a share, bond, fund or coin by its ticker, name or ISIN.')}
        </p>
      )}
      {deleting === 'list' && (
        <ConfirmDialog
          title={t('Удаление списка', 'Deleting the list')}
          message={
            <>
              {w.items.length > 0
                ? t(`Удалить список «${w.name}» и ${countOf(locale, w.items.length, ASSET_FORMS)} в нём?`, `Delete the list "${w.name}" with its ${countOf(locale, w.items.length, ASSET_FORMS)}?`)
                : t(`Удалить список «${w.name}»?`, `Delete the list "${w.name}"?`)}{' '}
              {t('Уведомления на этот список выключатся.', 'Alerts on this list are switched off.')}
            </>
          }
          confirmLabel={t('Удалить', 'Delete')}
          onConfirm={async () => {
            await api.delete('/api/watchlists/{id}', { path: { id: w.id } });
            onChanged();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
      {deleting !== null && deleting !== 'list' && (
        <ConfirmDialog
          title={t('Удаление из списка', 'Removing from the list')}
          message={t(`Убрать ${label(deleting)} из списка «${w.name}»?`, `Remove ${label(deleting)} from the list "${w.name}"?`)}
          confirmLabel={t('Убрать', 'Remove')}
          onConfirm={async () => {
            await api.delete('/api/watchlists/{id}/items/{itemId}', { path: { id: w.id, itemId: deleting.id } });
            onChanged();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
      <AddItem watchlistId={w.id} onAdded={onChanged} />
    </div>
  );
}

/** Adds an asset of any type, found with the asset search. */
function AddItem({ watchlistId, onAdded }: { watchlistId: number; onAdded: () => void }) {
  const t = useTr();
  const [asset, setAsset] = useState<FoundAsset | null>(null);
  // A new picker after each add: its field starts empty.
  const [pickerKey, setPickerKey] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const key = useRef(newKey());
  const add = async () => {
    setError(null);
    if (!asset) return setError(inputError({ assetable: [t('Выберите актив из списка.', 'Pick an asset from the list.')] }));
    setBusy(true);
    try {
      await api.post('/api/watchlists/{id}/items', { path: { id: watchlistId }, body: { assetable: { type: asset.type, id: asset.id } }, idempotencyKey: key.current });
      key.current = newKey();
      setAsset(null);
      setPickerKey((k) => k + 1);
      onAdded();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="watchlist-add"
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <Field label={t('Добавить актив: тикер, название или ISIN', 'Add an asset: ticker, name or ISIN')} name="assetable" error={error}>
        <AssetPicker key={pickerKey} testId="watchlist-asset" value={asset} onChange={setAsset} placeholder={t('Например, SBER', 'For example, SBER')} />
      </Field>
      <button type="submit" className="secondary" data-testid="watchlist-add" disabled={busy}>
        {t('Добавить', 'Add')}
      </button>
      <FormError error={error} fields={['assetable']} testId="watchlist-add-error" />
    </form>
  );
}
