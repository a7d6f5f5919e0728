import type { Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { TelegramRepository } from './telegram.repository.js';

let db: Db;
useTestDatabase('telegram_repo', migrations, (d) => (db = d));

const at = (iso: string) => new Date(iso);

describe('the Telegram tables', () => {
  it('keep an update id once, and forget ids and link tokens older than the prune point', async () => {
    const repo = new TelegramRepository(db);
    expect(await repo.recordUpdate(1, at('2026-01-01T00:00:00Z'))).toBe(true);
    expect(await repo.recordUpdate(1, at('2026-01-01T00:00:01Z'))).toBe(false);
    expect(await repo.recordUpdate(2, at('2026-01-03T00:00:00Z'))).toBe(true);
    await repo.saveLinkToken('old', 'u1', at('2026-01-01T00:15:00Z'));
    await repo.saveLinkToken('new', 'u1', at('2026-01-03T00:15:00Z'));

    await repo.prune(at('2026-01-02T00:00:00Z'));
    expect(await db.query('select update_id::int as id from telegram_updates order by 1')).toEqual([{ id: 2 }]);
    expect(await db.query('select token_hash from telegram_link_tokens')).toEqual([{ token_hash: 'new' }]);
    // An id forgotten is new again (Telegram never sends it that late).
    expect(await repo.recordUpdate(1, at('2026-01-03T00:00:00Z'))).toBe(true);
  });

  it('use a link token once, and say why not afterwards', async () => {
    const repo = new TelegramRepository(db);
    await repo.saveLinkToken('t1', 'u2', at('2026-02-01T00:15:00Z'));
    expect(await repo.useLinkToken('t1', at('2026-02-01T00:15:00Z'))).toEqual({ status: 'expired', userId: 'u2' });
    expect(await repo.useLinkToken('t1', at('2026-02-01T00:14:59Z'))).toEqual({ status: 'linked', userId: 'u2' });
    expect(await repo.useLinkToken('t1', at('2026-02-01T00:14:59Z'))).toEqual({ status: 'used', userId: 'u2' });
    expect(await repo.useLinkToken('nope', at('2026-02-01T00:00:00Z'))).toEqual({ status: 'unknown' });
  });

  it('give a chat to one user: linking it elsewhere moves it; a muted chat is no address until its mute ends', async () => {
    const repo = new TelegramRepository(db);
    const now = at('2026-03-01T12:00:00Z');
    await repo.linkChat('a', 500, 'anna', now);
    await repo.linkChat('b', 500, 'anna', now);
    expect((await repo.deliverableChats(['a'], now)).get('a')).toBeUndefined();
    expect((await repo.deliverableChats(['b'], now)).get('b')).toBe('500');
    await repo.mute(500, at('2026-03-01T13:00:00Z'), now);
    expect((await repo.deliverableChats(['b'], at('2026-03-01T12:59:59Z'))).get('b')).toBeUndefined();
    expect((await repo.deliverableChats(['b'], at('2026-03-01T13:00:00Z'))).get('b')).toBe('500');
    await repo.markBlocked('b', '500', now);
    expect(await db.query("select chat_id, blocked, muted_until from telegram_chats where user_id = 'b'")).toEqual([{ chat_id: null, blocked: true, muted_until: null }]);
    // Linked again: not blocked any more.
    await repo.linkChat('b', 500, 'anna', now);
    expect(await db.query("select chat_id::int as chat_id, blocked from telegram_chats where user_id = 'b'")).toEqual([{ chat_id: 500, blocked: false }]);
  });
});
