import { baseConfigSchema } from '@invest/platform';
import { z } from 'zod';

const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'must be true or false' }))
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

/** Environment of the screener service. The database URL comes from `serviceDatabaseUrl('screener')`. */
export const screenerConfigSchema = baseConfigSchema.extend({
  BUS_PREFIX: z.string().default(''),
  /** Load the demo shares and dividends on first start. */
  DEMO_DATA: booleanFlag.default(true),
});
export type ScreenerConfig = z.infer<typeof screenerConfigSchema>;
