import { z } from 'zod';

/** `screener.countries.list` takes no parameters. */
export const listCountriesQuerySchema = z.object({});
export type ListCountriesQuery = z.infer<typeof listCountriesQuerySchema>;

export const countrySchema = z.object({
  /** ISO 3166-1 alpha-2, upper case; usable as `?country_code=`. */
  code: z.string().length(2),
  /** English name. */
  name: z.string(),
  shares_count: z.number().int(),
});
export type Country = z.infer<typeof countrySchema>;

export const listCountriesReplySchema = z.object({ data: z.array(countrySchema) });
export type ListCountriesReply = z.infer<typeof listCountriesReplySchema>;
