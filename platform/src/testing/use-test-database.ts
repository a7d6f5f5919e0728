import { afterAll, beforeAll } from 'vitest';
import { type Db, type OpenDatabaseOptions, openDatabase } from '../db/database.js';
import { createTestDatabase } from './test-env.js';

/**
 * Registers vitest hooks that give the calling file a fresh database with `migrations` applied before
 * its tests (handed to `onOpen`), and close and drop it after them.
 */
export function useTestDatabase(prefix: string, migrations: OpenDatabaseOptions['migrations'], onOpen: (db: Db) => void): void {
  let db: Db | undefined;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const t = await createTestDatabase(prefix);
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
    onOpen(db);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
}
