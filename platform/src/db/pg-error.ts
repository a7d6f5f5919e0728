/**
 * The Postgres error code and constraint of a failed query (`23505` and the unique index's name for a unique
 * violation), whether the driver's error was thrown as is or wrapped by MikroORM, whose errors carry it as
 * their cause.
 */
export function pgError(err: unknown): { code?: string; constraint?: string } {
  const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
  return e?.cause?.code ? e.cause : (e ?? {});
}
