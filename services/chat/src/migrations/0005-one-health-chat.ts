import { Migration } from '@invest/platform';

/**
 * One chat per (user, context type, context id), i.e. one portfolio_health chat per portfolio (support has no
 * context id): opening it again continues it (issue 35). Chats made before, one per click, are merged first: the most recently active one keeps every message (their order is `seq`, the
 * order they were written) and the first title; the others are soft-deleted, so their answers still count.
 */
export class OneChatPerContext extends Migration {
  override up() {
    this.addSql(`
      with ranked as (
        select id, first_value(id) over w as keep
          from chats where context_id is not null and deleted_at is null
        window w as (partition by user_id, context_type, context_id order by updated_at desc, id)
      ), moved as (
        update chat_messages m set chat_id = r.keep from ranked r where m.chat_id = r.id and r.id <> r.keep returning m.chat_id
      ), titled as (
        update chats c set title = (select d.title from chats d join ranked r on r.id = d.id where r.keep = c.id and d.title is not null order by d.created_at limit 1)
         where c.id in (select keep from ranked) and c.title is null
      )
      update chats c set deleted_at = now() from ranked r where c.id = r.id and r.id <> r.keep`);
    this.addSql(
      `create unique index chats_one_per_context_idx on chats (user_id, context_type, context_id) where context_id is not null and deleted_at is null`,
    );
  }
}
