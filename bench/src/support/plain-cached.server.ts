/**
 * The second floor of the screener benchmark: one plain Fastify process answering `GET /api/public/shares`
 * from memory with the gateway's own bytes and headers (fetched once per URL from `SOURCE_URL`, the gateway),
 * so the gap to the gateway's cached answer is the cost of the gateway itself (Nest, hooks, query validation,
 * key and links), not of the data.
 * A floor, not an older version of our code: older versions are built from a git ref (baseline-ref.ts).
 */
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 3101);
const source = process.env.SOURCE_URL ?? 'http://127.0.0.1:3000';
const pages = new Map<string, { body: Buffer; headers: Record<string, string> }>();
const app = Fastify({ logger: false });

app.get('/api/public/shares', async (req, reply) => {
  let page = pages.get(req.url);
  if (!page) {
    const res = await fetch(`${source}${req.url}`);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'etag', 'cache-control']) {
      const v = res.headers.get(name);
      if (v !== null) headers[name] = v;
    }
    page = { body: Buffer.from(await res.arrayBuffer()), headers };
    if (res.ok) pages.set(req.url, page);
  }
  return reply.headers(page.headers).send(page.body);
});
app.get('/health', async () => ({ ok: true }));

await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', async () => {
  await app.close();
  process.exit(0);
});
