/**
 * The floor of the stack for the screener benchmark: one Fastify process with a pg pool that answers
 * `GET /api/public/shares` by running the screener's own list SQL (same builder, same validation
 * schema, same paging meta, same named prepared statement), with no NestJS, no NATS and no second process.
 * A floor, not an older version of our code: older versions are built from a git ref (baseline-ref.ts).
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { listSharesQuerySchema, pageMeta } from '@invest/contracts';
import { buildListSharesSql, type ListSharesResultRow } from '@invest/screener/shares/list-shares.query';
import { dateInZone } from '@invest/platform';

const port = Number(process.env.PORT ?? 3100);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });

app.get('/api/public/shares', async (req, reply) => {
  const parsed = listSharesQuerySchema.safeParse(req.query);
  if (!parsed.success) return reply.code(422).send({ message: 'The given data was invalid.' });
  const { sql, params } = buildListSharesSql(parsed.data, dateInZone(new Date(), 'Europe/Moscow'));
  // Named, like the screener's own call: each connection plans each query shape once.
  const name = `q_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
  const { rows } = await pool.query<ListSharesResultRow>({ name, text: sql, values: params });
  const data = rows[0]?.data ?? [];
  return { data, meta: pageMeta(parsed.data, rows[0]?.total ?? 0, data.length) };
});
app.get('/health', async () => ({ ok: true }));

await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', async () => {
  await app.close();
  await pool.end();
  process.exit(0);
});
