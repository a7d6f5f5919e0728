import { randomBytes } from 'node:crypto';
import { connectNats } from '../messaging/nats-connection.js';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { DROP_LATER_COMMENT, testNatsUrl, testPostgresUrl } from './test-env.js';

/** How often the reaper looks for databases the tests are done with. */
const REAP_EVERY_MS = 1000;

/**
 * vitest global setup: gives the run an id (every `uniqueName` carries it) and, at the end, deletes the
 * JetStream streams and databases of this run that tests left behind (a failed test skips its own
 * clean-up). Only names with this run's id are touched, so concurrent runs on the same servers are safe.
 *
 * During the run it drops the databases the test files marked as done (`createTestDatabase`'s `drop()`),
 * several at once: each DROP DATABASE waits for a checkpoint, and drops running together share one, here
 * rather than at the end of every test file.
 */
export default function setup() {
  const runId = `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  process.env.TEST_RUN_ID = runId;
  process.env.TEST_DROP_DATABASES_LATER = '1';
  const marker = `_${runId}_`;

  /** Drops this run's databases: the marked ones, or all of them. */
  const dropDatabases = async (onlyMarked: boolean) => {
    const admin = new pg.Client({ connectionString: testPostgresUrl() });
    try {
      await admin.connect();
      const { rows } = await admin.query<{ datname: string }>(
        `select datname from pg_database where datname like $1 and ($2::boolean is false or shobj_description(oid, 'pg_database') = $3)`,
        [`%${marker}%`, onlyMarked, DROP_LATER_COMMENT],
      );
      // A few at a time: each takes a connection of the hundred Postgres allows, which the tests use too.
      for (let i = 0; i < rows.length; i += 4) {
        await Promise.all(
          rows.slice(i, i + 4).map(async ({ datname }) => {
            const c = new pg.Client({ connectionString: testPostgresUrl() });
            try {
              await c.connect();
              await c.query(`drop database if exists "${datname}" with (force)`);
            } catch {
              /* gone already, or Postgres gone: the next sweep or the teardown tries again */
            } finally {
              await c.end().catch(() => undefined);
            }
          }),
        );
      }
    } catch {
      /* Postgres gone: nothing to clean */
    } finally {
      await admin.end().catch(() => undefined);
    }
  };

  let stopped = false;
  let sweeping: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const nextSweep = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      sweeping = dropDatabases(true).finally(nextSweep);
    }, REAP_EVERY_MS);
    timer.unref();
  };
  nextSweep();

  return async function teardown() {
    stopped = true;
    clearTimeout(timer);
    await sweeping;
    try {
      const nc = await connectNats(testNatsUrl(), 'test-teardown', { maxReconnectAttempts: 0 });
      try {
        const jsm = await jetstreamManager(nc);
        for await (const stream of jsm.streams.list()) {
          if (stream.config.name.toLowerCase().includes(marker)) await jsm.streams.delete(stream.config.name).catch(() => undefined);
        }
      } finally {
        await nc.close();
      }
    } catch {
      /* NATS gone: nothing to clean */
    }
    await dropDatabases(false);
  };
}
