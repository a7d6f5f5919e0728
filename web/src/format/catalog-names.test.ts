import { describe, expect, it } from 'vitest';
import { categoryName, planTitle } from './catalog-names';

describe('catalogue names', () => {
  it('names categories and plans in Russian by slug and code, keeps the API name in English and for unknown entries', () => {
    expect(categoryName('ru', { slug: 'preferred', name: 'Preferred shares' })).toBe('Привилегированные акции');
    expect(categoryName('en', { slug: 'preferred', name: 'Preferred shares' })).toBe('Preferred shares');
    expect(categoryName('ru', { slug: 'new-kind', name: 'New kind' })).toBe('New kind');
    expect(planTitle('ru', { code: 'basic-y', title: 'Basic, yearly' })).toBe('Базовый, на год');
    expect(planTitle('en', { code: 'basic-y', title: 'Basic, yearly' })).toBe('Basic, yearly');
    expect(planTitle('ru', { code: 'gold', title: 'Gold' })).toBe('Gold');
  });
});
