import { type KeyboardEvent, useEffect, useId, useState } from 'react';
import { type Answer, api } from '../api/client';
import { useTr } from '../tr';

/** One asset the search found: what a deal or an alert refers to (`type`, `id`) and what the list shows. */
export type FoundAsset = Answer<'/api/assets', 'get'>['data'][number];
type AssetType = FoundAsset['type'];

const TYPE_NAMES: Record<AssetType, [string, string]> = {
  share: ['Акция', 'Share'],
  bond: ['Облигация', 'Bond'],
  etf: ['Фонд', 'ETF'],
  future: ['Фьючерс', 'Future'],
  currency: ['Валюта', 'Currency'],
  token: ['Токен', 'Token'],
  custom_asset: ['Свой актив', 'Custom asset'],
};

/** The asset type in the UI's language. */
export function assetTypeName(type: AssetType, t: (ru: string, en: string) => string): string {
  return t(...TYPE_NAMES[type]);
}

/** How many found assets the list shows: a handful to pick from; more means the search should say more. */
const SHOWN = 8;

/**
 * A search field for an asset of any type (`GET /api/assets`: shares, bonds, funds, futures, currencies, tokens and
 * the user's own assets), best match first. Keyboard: ↑/↓ move through the list, Enter picks, Escape closes the list
 * (not the dialog around it). Typing again after a pick clears it (`onChange(null)`).
 */
export function AssetPicker({
  value,
  onChange,
  testId,
  placeholder,
  autoFocus,
}: {
  value: FoundAsset | null;
  onChange: (asset: FoundAsset | null) => void;
  /** Prefix of the test ids: `<testId>-search`, `<testId>-options`, `<testId>-option` (with `data-ticker`, `data-type`). */
  testId: string;
  placeholder?: string;
  autoFocus?: boolean;
}) {
  const t = useTr();
  const listId = useId();
  const [query, setQuery] = useState(value?.ticker ?? '');
  const [matches, setMatches] = useState<FoundAsset[] | null>(null);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);

  useEffect(() => {
    const term = query.trim();
    if (!term || (value && value.ticker === query)) {
      setMatches(null);
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => {
      api.get('/api/assets', { query: { search: term, limit: String(SHOWN) }, signal: abort.signal }).then(
        (r) => {
          setMatches(r.data);
          setActive(0);
          setOpen(true);
        },
        () => undefined,
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [query, value]);

  const pick = (asset: FoundAsset) => {
    onChange(asset);
    setQuery(asset.ticker);
    setMatches(null);
    setOpen(false);
  };

  const shown = open && matches !== null;
  // The highlighted row stays in view when ↑/↓ move past the list's visible part.
  useEffect(() => {
    if (shown) document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [shown, active, listId]);
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    const count = matches?.length ?? 0;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!count) return;
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      // The first press opens a closed list on its first (or last) row.
      setActive((i) => (shown ? (i + step + count) % count : step > 0 ? 0 : count - 1));
      setOpen(true);
    } else if (e.key === 'Enter') {
      // Enter picks the highlighted row instead of submitting the form.
      const asset = shown ? matches[active] : undefined;
      if (asset) {
        e.preventDefault();
        pick(asset);
      }
    } else if (e.key === 'Escape' && shown) {
      // Closes the list only: the dialog around the field stays open.
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    }
  };

  return (
    <div className="picker">
      <input
        data-testid={`${testId}-search`}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown && matches.length > 0}
        // Only while the list is there: an id that names nothing is an error to assistive technology.
        aria-controls={shown ? listId : undefined}
        aria-activedescendant={shown && matches.length > 0 ? `${listId}-${active}` : undefined}
        value={query}
        placeholder={placeholder}
        autoFocus={autoFocus}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => {
          setQuery(e.target.value);
          if (value) onChange(null);
        }}
        onKeyDown={onKeyDown}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
      />
      {shown && (
        <ul className="picker-list" role="listbox" id={listId} data-testid={`${testId}-options`}>
          {matches.map((m, i) => (
            <li
              key={`${m.type}:${m.id}`}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              data-testid={`${testId}-option`}
              data-ticker={m.ticker}
              data-type={m.type}
              // Keeps the focus in the field, so the click lands before the list closes on blur.
              onMouseDown={(e) => e.preventDefault()}
              onMouseEnter={() => setActive(i)}
              onClick={() => pick(m)}
            >
              <b className="picker-ticker">{m.ticker}</b>
              <span className="picker-name">{m.name}</span>
              <span className="picker-type">{assetTypeName(m.type, t)}</span>
            </li>
          ))}
          {matches.length === 0 && (
            <li className="muted" role="presentation" data-testid={`${testId}-none`}>
              {t('Ничего не найдено', 'Nothing found')}
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
