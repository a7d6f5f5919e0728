/**
 * The floor of `npm run bench -- billing`: a plain Node HTTP server that does the least a correct webhook
 * must do — check the HMAC over the raw bytes, parse the form, and record the TransactionId once
 * (`insert … on conflict do nothing`) — with no gateway, no NATS, no event store and no read models.
 * A floor, not an older version of our code: older versions are built from a git ref (baseline-ref.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query('create table if not exists plain_payments (transaction_id text primary key, account_id text, amount numeric(14,2))');
const secret = process.env.CLOUDPAYMENTS_API_SECRET ?? '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    void (async () => {
      if (req.url === '/health') return res.end('ok');
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('base64'));
      const given = Buffer.from(String(req.headers['content-hmac'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.writeHead(401).end();
        return;
      }
      const p = new URLSearchParams(raw.toString('utf8'));
      await pool.query('insert into plain_payments values ($1, $2, $3) on conflict do nothing', [p.get('TransactionId'), p.get('AccountId'), p.get('Amount')]);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":0}');
    })().catch(() => res.writeHead(500).end());
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
