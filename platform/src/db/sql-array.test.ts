import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/use-test-database.js';
import type { Db } from './database.js';
import { sqlArray } from './sql-array.js';

describe('sqlArray (real Postgres)', () => {
  let db: Db;
  useTestDatabase('sql_array', [], (opened) => (db = opened));

  it('round-trips text with quotes, backslashes, commas, braces, blanks, NULL and the word NULL', async () => {
    const values = ['plain', 'with "quotes"', 'back\\slash', 'a,b', '{braces}', ' padded ', '', 'NULL', null, 'ё юникод'];
    const [row] = await db.query<{ a: (string | null)[] }>('select $1::text[] as a', [sqlArray(values)]);
    expect(row!.a).toEqual(values);
  });

  it('round-trips numbers exactly as numeric, and refuses what is not finite', async () => {
    const values = [0, -1.5, 100.37, 1e-7, 123456789012.25, null];
    const [row] = await db.query<{ a: (number | null)[] }>('select $1::numeric[]::float8[] as a', [sqlArray(values)]);
    expect(row!.a).toEqual(values);
    expect(() => sqlArray([Number.NaN])).toThrow(/not a finite number/);
    expect(() => sqlArray([Number.POSITIVE_INFINITY])).toThrow(/not a finite number/);
  });

  it('makes the same array node-postgres makes of the JS array', async () => {
    const values = ['x"y', 'z\\', null, '1.5'];
    const [row] = await db.query<{ same: boolean }>('select $1::text[] is not distinct from $2::text[] as same', [sqlArray(values), values]);
    expect(row!.same).toBe(true);
  });
});
