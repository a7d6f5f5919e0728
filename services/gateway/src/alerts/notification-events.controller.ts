import { Body, Controller, Get, Headers, HttpCode, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import {
  type ListNotificationEventsRequest,
  listNotificationEventsRequestSchema,
  markReadRequestSchema,
  pageMeta,
  notificationEventSchema,
  type NotificationEventView,
  type NotificationFiredV1,
  notificationFiredView,
  type Page,
  Subjects,
} from '@invest/contracts';
import { currentContext, isReplyTooLarge, type Logger, type RpcClient, ServiceError } from '@invest/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { DEFAULT_STREAMS_PER_USER, type GatewayConfig } from '../config/gateway.config.js';
import { pageSchema } from '../docs/openapi.schemas.js';
import { type LinkedPage, withLinks } from '../paging/page-links.js';
import { ApiOwnedResource, dataSchema } from '../common/resource.openapi.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { parseBody, parseQuery } from '../validation/request-input.js';
import { localeFromAcceptLanguage } from '../i18n/accept-language.js';
import type { NotificationFeed } from './notification-feed.js';
import { SentFirings } from './sent-firings.js';
import { StreamsPerUser } from '../common/streams-per-user.js';

type EventsPage = Page<NotificationEventView> & { meta: Page<NotificationEventView>['meta'] & { unread_count: number; last_id: number } };

const eventRow = openApiSchema(notificationEventSchema);
const inboxPage = pageSchema(eventRow);
(inboxPage.properties!.meta as { properties: Record<string, unknown> }).properties.unread_count = { type: 'integer', description: 'Unread firings of the user (all pages).' };
/** At most this many missed firings are replayed per read while catching up. */
const REPLAY_BATCH = 100;
/** At most this many live firings wait for a stream that cannot write them yet; past it, the inbox read catches up. */
const LIVE_QUEUE = 100;

/**
 * The user's fired notifications: the inbox (paged, newest first, unread count, mark read) and a live SSE
 * stream. The stream writes each NotificationFired of the user as it goes by on ALERTS_EVENTS (NotificationFeed),
 * rendered as its inbox row (`notificationFiredView`), with no read of the inbox. The inbox is read for the replay
 * after `Last-Event-ID` (any gateway instance can serve a reconnect) and every NOTIFICATION_STREAM_POLL_MS as a
 * backstop for a message core NATS lost; `SentFirings` keeps a firing from going out twice on one stream. A
 * heartbeat comment every NOTIFICATION_STREAM_HEARTBEAT_MS keeps proxies from closing the connection.
 */
export function createNotificationEventsController({ rpc, config, logger, feed, auth }: { rpc: RpcClient; config: GatewayConfig; logger: Logger; feed: NotificationFeed; auth: JwtAuthGuard }) {
  @ApiTags('notifications')
  @UseGuards(auth)
  @Controller('api/notification-events')
  class NotificationEventsController {
    /** Live streams by user on this instance. */
    private readonly openStreams = new StreamsPerUser('live notification streams');

    @Get()
    @ApiOperation({ summary: 'Fired notifications (inbox)', description: 'Newest first, rendered in the Accept-Language (ru or en; ru by default), with the unread count.' })
    @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1 } })
    @ApiQuery({ name: 'per_page', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } })
    @ApiQuery({ name: 'unread', required: false, schema: { type: 'boolean' }, description: 'Only unread firings.' })
    @ApiHeader({ name: 'Accept-Language', required: false, description: 'ru or en.' })
    @ApiOkResponse({ schema: inboxPage })
    @ApiOwnedResource({ validation: true })
    async list(@Query() query: Record<string, unknown>, @Headers('accept-language') lang: unknown, @Req() request: FastifyRequest): Promise<LinkedPage<NotificationEventView>> {
      const { after_id: _ignored, ...rest } = query;
      const q = { ...parseQuery(listNotificationEventsRequestSchema, rest), locale: localeFromAcceptLanguage(lang) };
      return withLinks(await this.inboxPage(q), request.url, config.publicBaseUrl);
    }

    /**
     * One page of the inbox. Firings naming hundreds of assets (~40 KB each) can make a page of 100 more than one NATS
     * reply holds: that page is then asked for in halves (the same rows: pages 2p-1 and 2p of half the size), or row
     * by row when its size is odd, and put together again.
     */
    private async inboxPage(q: ListNotificationEventsRequest & { locale: string }): Promise<EventsPage> {
      try {
        return await rpc.request<EventsPage>(Subjects.alerts.notificationEventsList, q);
      } catch (err) {
        if (!isReplyTooLarge(err) || q.per_page === 1) throw err;
        const parts =
          q.per_page % 2 === 0
            ? [2 * q.page - 1, 2 * q.page].map((page) => ({ page, per_page: q.per_page / 2 }))
            : Array.from({ length: q.per_page }, (_, k) => ({ page: (q.page - 1) * q.per_page + k + 1, per_page: 1 }));
        const pages: EventsPage[] = [];
        for (const part of parts) pages.push(await this.inboxPage({ ...q, ...part }));
        const data = pages.flatMap((p) => p.data);
        const { total } = pages[0]!.meta;
        return { data, meta: { ...pages[0]!.meta, ...pageMeta(q, total, data.length) } };
      }
    }

    @Post('read')
    @HttpCode(200)
    @ApiOperation({ summary: 'Mark fired notifications read', description: '`{"ids": [1, 2]}` or `{"all": true}`; answers how many changed and the unread count left.' })
    @ApiBody({ schema: { ...openApiSchema(markReadRequestSchema, 'input'), example: { ids: [12, 13] } } })
    @ApiOkResponse({ schema: dataSchema({ type: 'object', properties: { marked: { type: 'integer' }, unread_count: { type: 'integer' } } }) })
    @ApiOwnedResource({ validation: true })
    markRead(@Body() body: unknown): Promise<{ data: { marked: number; unread_count: number } }> {
      return rpc.request(Subjects.alerts.notificationEventsMarkRead, parseBody(markReadRequestSchema, body));
    }

    @Get('stream')
    @ApiOperation({
      summary: 'Fired notifications, live (Server-Sent Events)',
      description:
        'Each firing is `id: <firing id>`, `event: notification`, `data: <the inbox row as JSON>`. Comment lines (`: heartbeat`) keep the connection open. ' +
        'Reconnect with `Last-Event-ID` (or `?last_event_id=`) to receive every firing after it, in order; without it the stream starts with what fires next.',
    })
    @ApiProduces('text/event-stream')
    @ApiOkResponse({
      description: 'A stream of `id: <firing id>` / `event: notification` / `data: <inbox row>` events and `: heartbeat` comments.',
      content: { 'text/event-stream': { schema: { type: 'string', example: 'id: 42\nevent: notification\ndata: {"id":42,"title":"SBER: price 350"}\n\n' } } },
    })
    @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The last firing id received.' })
    @ApiOwnedResource({ validation: true })
    async stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Headers('last-event-id') lastEventId: unknown, @Query('last_event_id') lastEventQuery: unknown): Promise<void> {
      const locale = localeFromAcceptLanguage(request.headers['accept-language']);
      const userId = currentContext()?.userId;
      const given = lastEventId ?? lastEventQuery;
      let after: number;
      if (given !== undefined && given !== '') {
        if (typeof given !== 'string' || !/^\d{1,15}$/.test(given)) throw ServiceError.validation({ 'Last-Event-ID': ['The Last-Event-ID must be a firing id.'] });
        after = Number(given);
      } else {
        // Start at the newest firing: a fresh stream shows what fires from now on.
        after = (await this.read(userId, 0, 1)).meta.last_id;
      }

      // Each stream holds a connection, timers, a backstop read and a live queue: a user gets a few at once, not any number.
      const release = this.openStreams.hold(userId ?? '', config.notificationStream.maxPerUser ?? DEFAULT_STREAMS_PER_USER);
      reply.hijack();
      const raw = reply.raw;
      // Registered before anything else can fail, so the count always comes down with the connection.
      let stop = () => {};
      let closed = false;
      let drained: (() => void) | undefined;
      const onClose = () => {
        if (closed) return;
        release();
        closed = true;
        drained?.();
        stop();
      };
      raw.on('close', onClose);
      // A client that left while the first read was under way: its close has been and gone.
      if (raw.destroyed || request.raw.destroyed) {
        onClose();
        return;
      }
      raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      raw.write(`retry: 3000\n: connected\n\n`);
      const sent = new SentFirings(after);
      /** Live firings of the user waiting while an inbox read or a slow client holds the stream. */
      const live: NotificationFiredV1[] = [];
      /** An inbox read is due: the replay first, then each backstop tick (and a late live firing). */
      let readDue = true;
      let following = false;
      let busy = false;
      let batch = REPLAY_BATCH;
      const frame = (e: NotificationEventView) => `id: ${e.id}\nevent: notification\ndata: ${JSON.stringify(e)}\n\n`;
      // A client reading slowly (or not at all): nothing more is written until what was has gone out.
      const drain = async () => {
        if (!closed) await new Promise<void>((resolve) => raw.once('drain', (drained = resolve)));
        drained = undefined;
      };
      /** The inbox after the cursor, in batches, each written once the last has gone out; what was pushed live is skipped. */
      const readInbox = async () => {
        for (;;) {
          let page: EventsPage;
          try {
            page = await this.read(userId, sent.after, batch, locale);
          } catch (err) {
            // A batch of big firings (a watchlist's hundreds of assets each) can exceed what one NATS reply holds:
            // smaller batches from then on, down to one firing, rather than retrying the same batch for ever.
            if (!isReplyTooLarge(err) || batch === 1) throw err;
            batch = Math.max(1, batch >> 2);
            continue;
          }
          let full = false;
          for (const e of page.data) {
            if (closed) return;
            if (sent.confirmed(e.id)) full = !raw.write(frame(e)) || full;
          }
          if (full) await drain();
          if (closed) return;
          if (page.data.length < batch) break;
        }
        sent.caughtUp();
      };
      /** Writes what is due, one thing at a time: an inbox read when one is due, else the live firings in turn. */
      const pump = async () => {
        if (busy || !following) return;
        busy = true;
        try {
          while (!closed) {
            if (readDue) {
              readDue = false;
              try {
                await readInbox();
              } catch (err) {
                // The alerts service is away: keep the stream (live firings still come), read again at the next tick.
                logger.warn({ err }, 'notification stream: inbox read failed');
              }
              continue;
            }
            const firing = live.shift();
            if (!firing) break;
            const verdict = sent.live(firing.firingId);
            if (verdict === 'send') {
              if (!raw.write(frame(notificationFiredView(firing, locale)))) await drain();
            } else if (verdict === 'late') {
              readDue = true;
            }
          }
        } finally {
          busy = false;
        }
      };
      const onFiring = (firing: NotificationFiredV1) => {
        // The feed fans out by user; a stream never sends another user's firing whatever reaches it.
        if (closed || firing.userId !== userId) return;
        if (live.length < LIVE_QUEUE) live.push(firing);
        else readDue = true;
        void pump();
      };
      let stopListening = () => {};
      const pollTimer = setInterval(() => {
        readDue = true;
        void pump();
      }, config.notificationStream.pollMs);
      const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), config.notificationStream.heartbeatMs);
      stop = () => {
        stopListening();
        clearInterval(pollTimer);
        clearInterval(heartbeat);
      };
      if (closed) stop();
      // Following before the first read: a firing committed after that read comes live (held until the read is written).
      if (userId) {
        const unlisten = await feed.listen(userId, onFiring);
        if (closed) unlisten();
        else stopListening = unlisten;
      }
      following = true;
      await pump();
    }

    private read(userId: string | undefined, afterId: number, perPage: number, locale = 'ru'): Promise<EventsPage> {
      return rpc.request<EventsPage>(Subjects.alerts.notificationEventsList, { after_id: afterId, per_page: perPage, page: 1, locale }, userId ? { userId } : {});
    }
  }
  return NotificationEventsController;
}
