import { useRef, useState } from 'react';
import { inputError } from '../api/api-error';
import { api, newKey } from '../api/client';
import { formatNumber, formatPercent } from '../format/number-format';
import { apiDecimal, parseDecimalFields, parseDecimalInput } from '../format/number-input';
import { alreadyReached, directionOf, distancePercent, type PriceDirection } from '../format/price-target';
import { useDecimalField } from '../format/use-decimal-field';
import { useLocale } from '../i18n';
import { useTr } from '../tr';
import { AssetPicker, assetTypeName, type FoundAsset } from './asset-picker';
import { Field, FormError } from './form-bits';
import { Modal } from './modal';
import { showToast } from './toast';

/** The thresholds the alerts service offers (its step: 5 → 10 → 15 for a 5 % alert). */
const THRESHOLDS = ['1', '2', '3', '5', '10'];

type AssetType = 'token' | 'share' | 'bond' | 'etf' | 'future' | 'currency' | 'custom_asset';

/** What an alert watches: one asset (price target or change), or every asset of a portfolio or watchlist (change). */
export type AlertTarget =
  | { kind: 'asset'; assetType: AssetType; id: number; label: string; currentRate: number | null }
  | { kind: 'portfolio' | 'watchlist'; id: number; label: string };

/** The alert target of an asset the picker found. */
const assetTarget = (a: FoundAsset): AlertTarget => ({ kind: 'asset', assetType: a.type, id: a.id, label: a.ticker, currentRate: a.current_rate });

/**
 * Creates a price-target or price-change alert; opened from a screener row, a portfolio or a watchlist, or with no
 * target (`null`): then the person first finds the asset, of any type, with the asset search.
 */
export default function AlertDialog({ target: given, onClose, onCreated }: { target: AlertTarget | null; onClose: () => void; onCreated?: () => void }) {
  const t = useTr();
  const locale = useLocale();
  const [picked, setPicked] = useState<FoundAsset | null>(null);
  const picking = given === null;
  const target = given ?? (picked ? assetTarget(picked) : null);
  const [mode, setMode] = useState<'price' | 'change'>(given === null || given.kind === 'asset' ? 'price' : 'change');
  // Never the current price: a target equal to it waits for nothing.
  const [price, setPrice] = useDecimalField('');
  // Which way the target waits; follows the typed price (above the rate → above) until the person picks one.
  const [direction, setDirection] = useState<PriceDirection>('above');
  const [directionPicked, setDirectionPicked] = useState(false);
  const currentRate = target?.kind === 'asset' ? target.currentRate : null;
  const typedPrice = parseDecimalInput(price, locale);
  const distance = typedPrice.ok ? distancePercent(typedPrice.text, currentRate) : null;
  const reached = typedPrice.ok && currentRate !== null && alreadyReached(typedPrice.text, currentRate, direction);
  const [threshold, setThreshold] = useState('5');
  const [frequency, setFrequency] = useState<'hourly' | 'daily'>('daily');
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // One key per dialog: a double click or a retry after a timeout creates one alert.
  const key = useRef(newKey());

  const submit = async () => {
    setError(null);
    if (!target) return setError(inputError({ assetable: [t('Выберите актив из списка.', 'Pick an asset from the list.')] }));
    // The target price is read by the locale and sent as decimal text, never through a double.
    const typed = parseDecimalFields({ target_price: price }, locale);
    if (mode === 'price' && !typed.ok) return setError(inputError(typed.errors));
    // The API refuses a target the rate has already reached that way (in English): said here, in the UI's language.
    if (mode === 'price' && typed.ok && currentRate !== null && alreadyReached(typed.texts.target_price, currentRate, direction)) {
      const now = formatNumber(currentRate, locale, 8);
      return setError(
        inputError({
          target_price: [
            direction === 'above'
              ? t(`Цель уже достигнута: цена сейчас ${now}. Для «Выше» укажите цену больше текущей.`, `Already reached: the price is ${now} now. For "Above" enter a price higher than that.`)
              : t(`Цель уже достигнута: цена сейчас ${now}. Для «Ниже» укажите цену меньше текущей.`, `Already reached: the price is ${now} now. For "Below" enter a price lower than that.`),
          ],
        }),
      );
    }
    setBusy(true);
    try {
      if (mode === 'price' && target.kind === 'asset' && typed.ok) {
        await api.post('/api/price-alert', {
          body: { target_price: apiDecimal(typed.texts.target_price), assetable: { type: target.assetType, id: target.id }, direction, name: name.trim() || null },
          idempotencyKey: key.current,
        });
      } else {
        await api.post('/api/price-change-alert', {
          body: {
            threshold: Number(threshold),
            frequency,
            targetable_type: target.kind,
            targetable_id: target.id,
            assetable_type_simplified: target.kind === 'asset' ? target.assetType : null,
            name: name.trim() || null,
          },
          idempotencyKey: key.current,
        });
      }
      showToast(t(`Уведомление для ${target.label} создано`, `Alert for ${target.label} created`), 'success');
      onCreated?.();
      onClose();
    } catch (err) {
      setError(err);
      key.current = newKey();
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal onClose={onClose} labelledBy="alert-title" testId="alert-dialog">
      <h2 id="alert-title">
        {t('Уведомление', 'Alert')}
        {target ? `: ${target.label}` : ''}
      </h2>
      {picking && (
        <Field label={t('Актив: тикер, название или ISIN', 'Asset: ticker, name or ISIN')} name="assetable" error={error}>
          <AssetPicker
            testId="alert-asset"
            value={picked}
            autoFocus
            onChange={(a) => {
              setPicked(a);
              setError(null);
            }}
          />
          {picked && (
            <span className="muted small" data-testid="alert-asset-picked" data-type={picked.type}>
              {picked.name} · {assetTypeName(picked.type, t)}
            </span>
          )}
        </Field>
      )}
      {(picking || target?.kind === 'asset') && (
        <div className="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={mode === 'price'} data-testid="alert-mode-price" onClick={() => setMode('price')}>
            {t('Цена', 'Price target')}
          </button>
          <button type="button" role="tab" aria-selected={mode === 'change'} data-testid="alert-mode-change" onClick={() => setMode('change')}>
            {t('Изменение', 'Change')}
          </button>
        </div>
      )}
      <form
        data-testid="alert-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {mode === 'price' ? (
          <>
            <div className="field" role="radiogroup" aria-labelledby="alert-direction-label">
              <span className="field-label" id="alert-direction-label">
                {t('Уведомить, когда цена станет', 'Notify when the price goes')}
              </span>
              <div className="tabs segmented">
                {(['above', 'below'] as const).map((d) => (
                  <button
                    key={d}
                    type="button"
                    role="radio"
                    aria-checked={direction === d}
                    data-testid={`alert-direction-${d}`}
                    onClick={() => {
                      setDirection(d);
                      setDirectionPicked(true);
                    }}
                  >
                    {d === 'above' ? t('Выше', 'Above') : t('Ниже', 'Below')}
                  </button>
                ))}
              </div>
            </div>
            <Field label={t('Целевая цена', 'Target price')} name="target_price" error={error}>
              <input
                data-testid="alert-target-price"
                inputMode="decimal"
                value={price}
                onChange={(e) => {
                  setPrice(e.target.value);
                  const typedNow = parseDecimalInput(e.target.value, locale);
                  const way = typedNow.ok && currentRate !== null ? directionOf(typedNow.text, currentRate) : null;
                  if (!directionPicked && way) setDirection(way);
                }}
                required
              />
              {currentRate !== null && (
                <span className="muted small" data-testid="alert-current-rate">
                  {t('Сейчас', 'Now')}: {formatNumber(currentRate, locale, 6)}
                  {distance !== null && (
                    <>
                      {' · '}
                      <span data-testid="alert-distance" data-value={distance.toFixed(4)} data-reached={reached ? 'true' : 'false'} className={reached ? 'field-error' : undefined}>
                        {formatPercent(distance, locale)} {t('от текущей', 'from now')}
                        {reached && ` · ${direction === 'above' ? t('цена уже выше', 'already above') : t('цена уже ниже', 'already below')}`}
                      </span>
                    </>
                  )}
                </span>
              )}
            </Field>
          </>
        ) : (
          <>
            <Field label={t('Порог изменения за 24 ч, %', '24h change threshold, %')} name="threshold" error={error}>
              <select data-testid="alert-threshold" value={threshold} onChange={(e) => setThreshold(e.target.value)}>
                {THRESHOLDS.map((n) => (
                  <option key={n} value={n}>
                    {n} %
                  </option>
                ))}
              </select>
            </Field>
            <Field label={t('Частота', 'Frequency')} name="frequency" error={error}>
              <select data-testid="alert-frequency" value={frequency} onChange={(e) => setFrequency(e.target.value as 'hourly' | 'daily')}>
                <option value="hourly">{t('Не чаще раза в час', 'At most hourly')}</option>
                <option value="daily">{t('Не чаще раза в день', 'At most daily')}</option>
              </select>
            </Field>
          </>
        )}
        <Field label={t('Название (необязательно)', 'Name (optional)')} name="name" error={error}>
          <input data-testid="alert-name" value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />
        </Field>
        <FormError error={error} fields={['target_price', 'threshold', 'frequency', 'name', ...(picking ? ['assetable'] : [])]} testId="alert-error" />
        <div className="actions">
          <button type="button" className="secondary" onClick={onClose}>
            {t('Отмена', 'Cancel')}
          </button>
          <button type="submit" data-testid="alert-submit" disabled={busy}>
            {t('Создать', 'Create')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
