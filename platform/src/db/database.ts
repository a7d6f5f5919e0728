import { type Constructor, type EntitySchema } from '@mikro-orm/core';
import { Migration, Migrator } from '@mikro-orm/migrations';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { assertBeforeDeadline } from '../context/deadline.js';
import type { Logger } from '../logging/logger.js';

/** Plain SQL with `$1` parameters, bound by the server. Implemented by Db and by a transaction. */
export interface SqlClient {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], opts?: QueryOptions): Promise<T[]>;
}

export interface QueryOptions {
  /**
   * Run as a named prepared statement, so each pooled connection plans it once. For hot reads whose SQL
   * text comes from a small, fixed set of shapes (never for text that varies without bound).
   * Ignored inside a transaction.
   */
  prepare?: boolean;
}

/** A SqlClient bound to one transaction, with the ORM EntityManager of that same transaction. */
export interface Tx extends SqlClient {
  em: EntityManager;
}

export { Migration };

type KyselyLike = { executeQuery(q: CompiledQuery): Promise<{ rows: unknown[] }> };

function clientOf(em: EntityManager): KyselyLike {
  return (em.getTransactionContext() as KyselyLike | undefined) ?? (em.getConnection().getClient() as KyselyLike);
}

/** Wraps an EntityManager (and its open transaction, if any) as a SqlClient. */
export function sqlClientOf(em: EntityManager): Tx {
  return {
    em,
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await clientOf(em).executeQuery(CompiledQuery.raw(sql, params as unknown[]));
      return res.rows as T[];
    },
  };
}

/** One service's database: the MikroORM instance plus plain parameterised SQL and transactions. */
export class Db implements SqlClient {
  constructor(
    readonly orm: MikroORM,
    readonly url: string,
    /** The pg pool under MikroORM (same connections, same type parsers). */
    private readonly pool?: pg.Pool,
  ) {}

  async query<T = Record<string, unknown>>(sql: string, params: readonly unknown[] = [], opts: QueryOptions = {}): Promise<T[]> {
    if (opts.prepare && this.pool) {
      const res = await this.pool.query({ name: statementName(sql), text: sql, values: params as unknown[] });
      return res.rows as T[];
    }
    return sqlClientOf(this.orm.em).query<T>(sql, params);
  }

  /**
   * Runs `fn` in one transaction; state, events and inbox rows written through `tx` commit together. Inside a
   * request with a deadline (RPC handlers) a transaction neither begins nor commits once the deadline has
   * passed: it throws `unavailable` (outcome `not_done`) and rolls back, since nobody waits for the answer.
   */
  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    assertBeforeDeadline('start');
    return this.orm.em.fork().transactional(async (em) => {
      const result = await fn(sqlClientOf(em));
      assertBeforeDeadline('commit');
      return result;
    });
  }

  /** A fresh EntityManager for one unit of work (one NATS message, one job run). */
  fork(): EntityManager {
    return this.orm.em.fork();
  }

  close(): Promise<void> {
    return this.orm.close(true);
  }
}

const statementNames = new Map<string, string>();
/** A stable statement name per SQL text (pg caches plans per connection by name). */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `q_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    statementNames.set(sql, name);
  }
  return name;
}

export interface OpenDatabaseOptions {
  url: string;
  /** Migrations in the order they run; names must be unique and stable. */
  migrations: { name: string; class: Constructor<Migration> }[];
  entities?: (Constructor<unknown> | EntitySchema)[];
  logger?: Logger;
  poolMax?: number;
  /**
   * How long an idle pooled connection stays open (pg-pool's default: 10 s). A service whose work comes in
   * bursts further apart than that opens new backends for each, with cold catalogue caches.
   */
  poolIdleTimeoutMs?: number;
}

/** Creates the database if it does not exist (services own their databases; first start makes them). */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`refusing to create database with unusual name "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database "${name}"`);
      } catch (err) {
        // Two services starting at once may race to create it.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

/** Opens a service database: creates it if missing, connects MikroORM, and runs pending migrations. */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Db> {
  await ensureDatabaseExists(opts.url);
  let pool: pg.Pool | undefined;
  const orm = await MikroORM.init({
    driverOptions: { onPoolCreated: (p: pg.Pool) => void (pool = p) },
    clientUrl: opts.url,
    entities: opts.entities ?? [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: { migrationsList: opts.migrations, transactional: true, allOrNothing: true, snapshot: false },
    pool: { max: opts.poolMax ?? 10, ...(opts.poolIdleTimeoutMs !== undefined ? { idleTimeoutMillis: opts.poolIdleTimeoutMs } : {}) },
    debug: false,
    // MikroORM's own messages (migrator progress) go to the service log, not stdout.
    logger: (message: string) => opts.logger?.debug({ orm: true }, message),
  });
  const applied = await orm.migrator.up();
  if (applied.length && opts.logger) opts.logger.debug({ migrations: applied.map((m) => m.name) }, 'migrations applied');
  return new Db(orm, opts.url, pool);
}
