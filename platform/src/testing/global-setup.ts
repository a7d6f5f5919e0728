import { randomBytes } from 'node:crypto';
import { connectNats } from '../messaging/nats-connection.js';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { testNatsUrl, testPostgresUrl } from './test-env.js';

/**
 * vitest global setup: gives the run an id (every `uniqueName` carries it) and, at the end, deletes the
 * JetStream streams and databases of this run that tests left behind (a failed test skips its own
 * clean-up). Only names with this run's id are touched, so concurrent runs on the same servers are safe.
 */
export default function setup() {
  const runId = `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  process.env.TEST_RUN_ID = runId;
  const marker = `_${runId}_`;

  return async function teardown() {
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
    const admin = new pg.Client({ connectionString: testPostgresUrl() });
    try {
      await admin.connect();
      const { rows } = await admin.query<{ datname: string }>('select datname from pg_database where datname like $1', [`%${marker}%`]);
      for (const { datname } of rows) await admin.query(`drop database if exists "${datname}" with (force)`).catch(() => undefined);
    } catch {
      /* Postgres gone: nothing to clean */
    } finally {
      await admin.end().catch(() => undefined);
    }
  };
}
