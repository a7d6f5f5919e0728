import type { Page } from '@invest/contracts';

/** Laravel API-resource `links` block. */
export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

export type LinkedPage<T> = Page<T> & { links: PageLinks };

/**
 * Builds `links` for a page from the URL of the request (path and query as received) and the page's
 * `meta`. Every other query parameter is kept as it was; `page` is replaced in place (or appended).
 * With `baseUrl` the links are absolute, otherwise they are path URLs.
 * Like Laravel: `prev` exists when current_page > 1, `next` when current_page < last_page.
 */
export function pageLinks(requestUrl: string, meta: Pick<Page<unknown>['meta'], 'current_page' | 'last_page'>, baseUrl = ''): PageLinks {
  const q = requestUrl.indexOf('?');
  const path = q < 0 ? requestUrl : requestUrl.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : requestUrl.slice(q + 1));
  const at = (page: number): string => {
    params.set('page', String(page));
    return `${baseUrl}${path}?${params.toString()}`;
  };
  const { current_page: current, last_page: last } = meta;
  return {
    first: at(1),
    last: at(last),
    prev: current > 1 ? at(current - 1) : null,
    next: current < last ? at(current + 1) : null,
  };
}

/** The service's `{data, meta}` page with `links` added. */
export function withLinks<T>(page: Page<T>, requestUrl: string, baseUrl = ''): LinkedPage<T> {
  return { data: page.data, meta: page.meta, links: pageLinks(requestUrl, page.meta, baseUrl) };
}
