import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Postgres server URL for tests (`DATABASE_URL`'s server, else localhost). */
export function testPostgresUrl(database = 'postgres'): string {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/${database}`;
  return base.toString();
}

/** NATS URL for tests (`NATS_URL`, else localhost). */
export function testNatsUrl(): string {
  return process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
}

/**
 * A name unique to this run, safe for databases, streams and consumers. It carries the run id set by the
 * global setup (`TEST_RUN_ID`), so the global teardown can remove whatever a run left behind.
 */
export function uniqueName(prefix: string): string {
  const run = process.env.TEST_RUN_ID ?? `x${Date.now().toString(36)}`;
  return `${prefix}_${run}_${randomBytes(4).toString('hex')}`.toLowerCase();
}

/**
 * Marks a database the global setup's reaper drops (a comment on it: set at once, whoever is still connected).
 * Set by the global setup for the run; unset (a bench, a script), `drop()` drops the database itself.
 */
export const DROP_LATER_COMMENT = 'invest-test: drop';

/**
 * Creates a fresh database for one test file. `drop()` removes it (and any connections left in it). Under the
 * test run's global setup it only marks it for the setup's reaper: Postgres answers a DROP DATABASE only after a
 * checkpoint it forces, a second or more on a busy disk, which every file would otherwise wait for at its end.
 */
export async function createTestDatabase(prefix: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = uniqueName(`t_${prefix}`);
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  return {
    name,
    url: testPostgresUrl(name),
    async drop() {
      const c = new pg.Client({ connectionString: testPostgresUrl() });
      await c.connect();
      try {
        if (process.env.TEST_DROP_DATABASES_LATER === '1') await c.query(`comment on database "${name}" is '${DROP_LATER_COMMENT}'`);
        else await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
