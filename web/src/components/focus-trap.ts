/** What Tab can reach inside a dialog: enabled controls, links and anything given a tab stop. */
const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The dialog's tabbable elements in tab order (tree order; the dialogs use no positive tabindex), visible ones only. */
export function tabbables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => el.getClientRects().length > 0);
}

/**
 * Where Tab (or Shift+Tab) from the element at `index` of `count` tabbables goes when it would leave the dialog:
 * from the last forward to the first, from the first (or from outside them, -1: the dialog itself) back to the last.
 * null: the browser's own move stays inside.
 */
export function wrapFocus(index: number, count: number, backwards: boolean): number | null {
  if (count === 0) return null;
  if (backwards) return index <= 0 ? count - 1 : null;
  return index === -1 || index >= count - 1 ? 0 : null;
}
