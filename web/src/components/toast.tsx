import { useSyncExternalStore } from 'react';

export interface Toast {
  id: number;
  text: string;
  tone: 'info' | 'error' | 'success';
  title?: string;
  /** Lines under the text (the firings of one move). */
  items?: string[];
}

const listeners = new Set<() => void>();
let toasts: Toast[] = [];
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

function emit() {
  for (const l of listeners) l();
}

/** Dismisses the toast a few seconds from now (errors stay a little longer), again from the start when it changes. */
function dismissLater(toast: Toast) {
  clearTimeout(timers.get(toast.id));
  timers.set(
    toast.id,
    setTimeout(() => dismiss(toast.id), toast.tone === 'error' ? 9000 : 6000),
  );
}

/** Shows a message in the corner for a few seconds (errors stay a little longer); returns its id for `updateToast`. */
export function showToast(text: string, tone: Toast['tone'] = 'info', title?: string, items?: string[]): number {
  const toast: Toast = { id: nextId++, text, tone, ...(title ? { title } : {}), ...(items?.length ? { items } : {}) };
  toasts = [...toasts.slice(-3), toast];
  emit();
  dismissLater(toast);
  return toast.id;
}

/** Changes a toast in place (one toast that grows as more of the same move arrives); false when it is gone. */
export function updateToast(id: number, change: Pick<Toast, 'text' | 'title' | 'items'>): boolean {
  const old = toasts.find((t) => t.id === id);
  if (!old) return false;
  const toast: Toast = { id, tone: old.tone, text: change.text, ...(change.title ? { title: change.title } : {}), ...(change.items?.length ? { items: change.items } : {}) };
  toasts = toasts.map((t) => (t.id === id ? toast : t));
  emit();
  dismissLater(toast);
  return true;
}

function dismiss(id: number) {
  clearTimeout(timers.get(id));
  timers.delete(id);
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

export function Toasts() {
  const list = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => toasts,
  );
  return (
    <div className="toasts" role="status" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} className={`toast toast-${t.tone}`} data-testid="toast" data-count={t.items?.length ?? 1} onClick={() => dismiss(t.id)}>
          {t.title && <strong data-testid="toast-title">{t.title}</strong>}
          {t.text && <span data-testid="toast-text">{t.text}</span>}
          {t.items && (
            <ul className="toast-list" data-testid="toast-list">
              {t.items.map((item, i) => (
                <li key={i} data-testid="toast-item">
                  {item}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </div>
  );
}
