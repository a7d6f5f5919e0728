import { useLocale } from './i18n';
import { categoryName, planTitle } from './format/catalog-names';

/** Names of catalogue entries (a category by slug, a plan by code) in the current locale. */
export function useCatalogNames(): { category(c: { slug: string; name: string }): string; plan(p: { code: string; title: string }): string } {
  const locale = useLocale();
  return { category: (c) => categoryName(locale, c), plan: (p) => planTitle(locale, p) };
}
