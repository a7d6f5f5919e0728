/**
 * How a RatesUpdated was appended before the one-statement append (main at 1922594): the id and version look-ups,
 * a savepoint, and the data inside a jsonb[] parameter, kept so `npm run bench -- rates` measures the baseline
 * writers with it in the same run. Not used by the service.
 */
import { type AssetType, MarketEventTypes, type RateChange, ratesUpdatedV1Schema } from '@invest/contracts';
import type { Tx } from '@invest/platform';
import { MAX_RATES_PER_EVENT, ratesStream } from '@invest/screener/rates/rates-updated.recorder';
import { randomUUID } from 'node:crypto';

/** (Previous.) `recordRatesUpdated` through the previous `appendToStream`, for finite numbers (the bench's). */
export async function recordRatesUpdatedPrevious(tx: Tx, assetType: AssetType, source: string, changes: readonly RateChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const events = [];
  for (let i = 0; i < changes.length; i += MAX_RATES_PER_EVENT) {
    const data = ratesUpdatedV1Schema.parse({ version: 1, source, rates: changes.slice(i, i + MAX_RATES_PER_EVENT) });
    events.push({ type: MarketEventTypes.RatesUpdated, data });
  }
  await appendAnyPrevious(tx, ratesStream(assetType), events);
  return events.length;
}

/** (Previous.) appendToStream(tx, stream, events, 'any') without the conflict branches (rate writes hold a lock). */
async function appendAnyPrevious(tx: Tx, streamName: string, events: { type: string; data: unknown }[]): Promise<void> {
  const ids = events.map(() => randomUUID());
  const existing = await tx.query<{ event_id: string; stream_name: string }>('select event_id, stream_name from es_events where event_id = any($1::uuid[])', [ids]);
  if (existing.length > 0) throw new Error('fresh ids already stored');
  const [{ version } = { version: '0' }] = await tx.query<{ version: string }>(
    'select coalesce(max(stream_position), 0)::text as version from es_events where stream_name = $1',
    [streamName],
  );
  await tx.query('savepoint es_append');
  await tx.query(
    `insert into es_events (event_id, stream_name, stream_position, type, data, metadata)
       select id, $2, $3::bigint + ord, type, data, meta
       from unnest($1::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) with ordinality as e(id, type, data, meta, ord)`,
    [ids, streamName, Number(version), events.map((e) => e.type), events.map((e) => JSON.stringify(e.data)), events.map(() => '{}')],
  );
  await tx.query('release savepoint es_append');
}
