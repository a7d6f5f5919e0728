import { type KeyboardEvent, type ReactNode, useLayoutEffect, useRef, useState } from 'react';
import { tabbables, wrapFocus } from './focus-trap';

/**
 * Every modal dialog of the app: a native `<dialog>` opened with `showModal()`, so the page behind it is inert (no
 * click, no focus, hidden from screen readers) and it sits in the top layer. On top of that:
 * - Tab and Shift+Tab wrap around inside it (the browser would otherwise step out to its own address bar);
 * - Escape and a click on the backdrop call `onClose` (the parent unmounts the dialog; an inner control that uses
 *   Escape itself, like the asset picker's open list, calls `preventDefault()` and the dialog stays);
 * - when it unmounts, the focus goes back to the element that had it when the dialog opened (the button that opened
 *   it), when that is still on the page;
 * - the first focus goes to the element the dialog's content focused itself (React's `autoFocus`), else to one
 *   marked `data-autofocus`, else to the first control.
 * `suspended` hides it for a while without unmounting: while a third party's own dialog (the payment provider's
 * widget, added to the page's body) must be usable, which a modal dialog would leave inert under it.
 */
export function Modal({
  onClose,
  labelledBy,
  describedBy,
  role,
  testId,
  suspended = false,
  children,
}: {
  onClose: () => void;
  labelledBy: string;
  describedBy?: string;
  /** `alertdialog` for a question the person must answer (a confirmation). */
  role?: 'alertdialog';
  testId?: string;
  suspended?: boolean;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Read while rendering, before any `autoFocus` inside the dialog moves the focus.
  const [opener] = useState(() => (typeof document === 'undefined' ? null : document.activeElement));
  const close = useRef(onClose);
  close.current = onClose;
  const pressedOnBackdrop = useRef(false);
  // `close` events of our own `close()` calls (suspending), which must not close the dialog for good.
  const ownCloses = useRef(0);

  useLayoutEffect(() => {
    const dialog = ref.current!;
    // A close the page did not ask for (the browser closes a dialog on a second Escape without a cancel event).
    const closedByBrowser = () => {
      if (ownCloses.current > 0) ownCloses.current--;
      else close.current();
    };
    dialog.addEventListener('close', closedByBrowser);
    return () => {
      dialog.removeEventListener('close', closedByBrowser);
      if (dialog.open) dialog.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, [opener]);

  useLayoutEffect(() => {
    const dialog = ref.current!;
    if (suspended) return;
    const focused = document.activeElement;
    dialog.showModal();
    const first = focused instanceof HTMLElement && dialog.contains(focused) ? focused : (dialog.querySelector<HTMLElement>('[data-autofocus]') ?? tabbables(dialog)[0]);
    first?.focus();
    return () => {
      if (!dialog.open) return;
      ownCloses.current++;
      dialog.close();
    };
  }, [suspended]);

  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== 'Tab') return;
    const items = tabbables(e.currentTarget);
    const to = wrapFocus(items.indexOf(document.activeElement as HTMLElement), items.length, e.shiftKey);
    if (to !== null) {
      e.preventDefault();
      items[to]!.focus();
    } else if (items.length === 0) e.preventDefault();
  };

  return (
    <dialog
      ref={ref}
      className="modal"
      role={role}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      data-testid={testId}
      onKeyDown={onKeyDown}
      onCancel={(e) => {
        // Escape: the parent decides (it unmounts the dialog), so the element and React's state never disagree.
        e.preventDefault();
        close.current();
      }}
      // The backdrop is the dialog element itself (its content fills it): a press and release both on it closes.
      onMouseDown={(e) => (pressedOnBackdrop.current = e.target === e.currentTarget)}
      onClick={(e) => {
        if (pressedOnBackdrop.current && e.target === e.currentTarget) close.current();
      }}
    >
      <div className="modal-body">{children}</div>
    </dialog>
  );
}
