import { api } from '../api/client';

/**
 * Whether live firings pop up as toasts: the `in_app` channel of the user's notification settings. Read when the
 * event stream connects, and set by the settings screen whenever it loads or saves them. Off silences the toasts
 * only: every firing still reaches the inbox and the unread count. Unknown counts as on, so a settings read that
 * fails (the delivery service down) leaves toasts on; a failed read after a known answer keeps that answer.
 * `<html data-in-app-toasts>` says the value once known (the browser tests wait for it).
 */
let on = true;
// Every change takes a number; a read that left before a later change (a save on the settings screen) is dropped.
let generation = 0;

function set(next: boolean) {
  on = next;
  document.documentElement.setAttribute('data-in-app-toasts', next ? 'on' : 'off');
}

export function inAppToastsOn(): boolean {
  return on;
}

/** Reads the setting now. */
export function refreshInAppToasts(): Promise<void> {
  const mine = ++generation;
  return api.get('/api/notification-settings').then(
    (r) => {
      if (mine === generation) set(r.data.channels.in_app);
    },
    () => undefined,
  );
}

/** The setting as the server answered it to the settings screen. */
export function setInAppToasts(next: boolean): void {
  generation++;
  set(next);
}

/** Signed out: back to unknown (on). */
export function resetInAppToasts(): void {
  generation++;
  on = true;
  document.documentElement.removeAttribute('data-in-app-toasts');
}
