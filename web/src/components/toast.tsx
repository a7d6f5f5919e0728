import { useSyncExternalStore } from 'react';

export interface Toast {
  id: number;
  text: string;
  tone: 'info' | 'error' | 'success';
  title?: string;
}

const listeners = new Set<() => void>();
let toasts: Toast[] = [];
let nextId = 1;

function emit() {
  for (const l of listeners) l();
}

/** Shows a message in the corner for a few seconds (errors stay a little longer). */
export function showToast(text: string, tone: Toast['tone'] = 'info', title?: string): void {
  const toast: Toast = { id: nextId++, text, tone, ...(title ? { title } : {}) };
  toasts = [...toasts.slice(-3), toast];
  emit();
  setTimeout(() => dismiss(toast.id), tone === 'error' ? 9000 : 6000);
}

function dismiss(id: number) {
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
        <div key={t.id} className={`toast toast-${t.tone}`} data-testid="toast" onClick={() => dismiss(t.id)}>
          {t.title && <strong data-testid="toast-title">{t.title}</strong>}
          <span data-testid="toast-text">{t.text}</span>
        </div>
      ))}
    </div>
  );
}
