import { z } from 'zod';

/** `screener.categories.list` takes no parameters. */
export const listShareCategoriesQuerySchema = z.object({});
export type ListShareCategoriesQuery = z.infer<typeof listShareCategoriesQuerySchema>;

export const shareCategorySchema = z.object({
  id: z.number().int(),
  /** Stable identifier usable as `?category=` (e.g. `ordinary`, `preferred`, `depositary-receipt`). */
  slug: z.string(),
  name: z.string(),
  shares_count: z.number().int(),
});
export type ShareCategory = z.infer<typeof shareCategorySchema>;

export const listShareCategoriesReplySchema = z.object({ data: z.array(shareCategorySchema) });
export type ListShareCategoriesReply = z.infer<typeof listShareCategoriesReplySchema>;
