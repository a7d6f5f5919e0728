// The API names share categories and plans in English (its catalogue is one language); their slugs and codes
// are stable, so the Russian names live here. An entry the client does not know keeps the API's name.
const RU_CATEGORIES: Record<string, string> = {
  ordinary: 'Обыкновенные акции',
  preferred: 'Привилегированные акции',
  'depositary-receipt': 'Депозитарные расписки',
};
const RU_PLANS: Record<string, string> = {
  'basic-m': 'Базовый, на месяц',
  'basic-y': 'Базовый, на год',
  free: 'Бесплатный',
  'free-forever': 'Бесплатный навсегда',
};

/** A share category's name in `locale`, by its slug. */
export const categoryName = (locale: string, c: { slug: string; name: string }): string => (locale === 'ru' ? (RU_CATEGORIES[c.slug] ?? c.name) : c.name);

/** A plan's title in `locale`, by its code. */
export const planTitle = (locale: string, p: { code: string; title: string }): string => (locale === 'ru' ? (RU_PLANS[p.code] ?? p.title) : p.title);
