import { type ReactNode, useId, useState } from 'react';
import { useTr } from '../tr';
import { FormError } from './form-bits';
import { Modal } from './modal';

/**
 * Asks before something is deleted: every delete of the app (a deal, an alert, a watchlist or an item of it, a
 * portfolio) goes through it, naming what goes. Cancel (the first focus, so Enter or Escape right away deletes
 * nothing) keeps it; the red button runs `onConfirm`, then the dialog closes; a failure is shown in the dialog,
 * which stays open to try again or cancel. Test ids: `confirm-dialog`, `confirm-title`, `confirm-message`,
 * `confirm-cancel`, `confirm-ok`, `confirm-error`.
 */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  title: string;
  message: ReactNode;
  /** The red button: says what it does («Удалить», «Убрать»). */
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const t = useTr();
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <Modal onClose={onClose} labelledBy={`${id}-title`} describedBy={`${id}-message`} role="alertdialog" testId="confirm-dialog">
      <h2 id={`${id}-title`} data-testid="confirm-title">
        {title}
      </h2>
      <p id={`${id}-message`} className="confirm-message" data-testid="confirm-message">
        {message}
      </p>
      <FormError error={error} testId="confirm-error" />
      <div className="actions">
        <button type="button" className="secondary" data-testid="confirm-cancel" data-autofocus onClick={onClose}>
          {t('Отмена', 'Cancel')}
        </button>
        <button type="button" className="danger" data-testid="confirm-ok" disabled={busy} onClick={() => void confirm()}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
