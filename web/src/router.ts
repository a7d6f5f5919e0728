import { type MouseEvent, useSyncExternalStore } from 'react';

/** The location the app renders: path and query of the address bar. */
export interface Route {
  path: string;
  search: string;
}

const listeners = new Set<() => void>();
let route: Route = { path: location.pathname, search: location.search };

function update() {
  if (route.path === location.pathname && route.search === location.search) return;
  route = { path: location.pathname, search: location.search };
  for (const l of listeners) l();
}
window.addEventListener('popstate', update);

/** Changes the address without a page load; `replace` for state changes that should not pile up in history. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  update();
  if (!opts.replace) window.scrollTo(0, 0);
}

export function useRoute(): Route {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => route,
  );
}

/** onClick of an in-app link: a plain click navigates in place, a modified click opens as the browser would. */
export function linkClick(to: string) {
  return (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
}
