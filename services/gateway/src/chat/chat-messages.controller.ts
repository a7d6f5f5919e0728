import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type ChatStreamEvent, type MessageReply, messageReplySchema, type SendMessageReply, sendMessageBodySchema, Subjects } from '@invest/contracts';
import { currentContext, type Logger, type RpcCallOptions, type RpcClient, ServiceError } from '@invest/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import { StreamsPerUser } from '../common/streams-per-user.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { openApiSchema } from '../docs/openapi.schemas.js';
import { ApiOwnedResource } from '../common/resource.openapi.js';
import { parseBody } from '../validation/request-input.js';
import type { AnswerSubscription, ChatStreamReader, SequencedEvent } from './chat-stream.reader.js';
import { ApiChatId, ApiChatLimited } from './chats.controller.js';
import { ApiIdempotencyKey, IDEMPOTENCY_KEY, idempotencyOptions } from '../idempotency/idempotency-key.js';
import { localeFromAcceptLanguage } from '../i18n/accept-language.js';
import { openSse, parseLastEventId, writeSse } from './sse.js';

/**
 * Silence after which a stream looks at the stored answer (`storedEnd`): an answer is stored just before its last
 * chunks and final event are published, so a shorter look could end a live stream ahead of them.
 */
const FINAL_EVENT_GRACE_MS = 5_000;

/** The language of a stream's `error` messages: its request's Accept-Language, English when it names none (as error bodies). */
const localeOf = (req: FastifyRequest) => localeFromAcceptLanguage(req.headers['accept-language'], 'en');

const ApiMessageId = () => ApiParam({ name: 'messageId', description: 'Message id (UUID) of the answer.', schema: { type: 'string', format: 'uuid' } });
const SSE_DESCRIPTION =
  '`text/event-stream`. `event: start` `{"message_id","user_message_id"}`, `event: chunk` `{"content"}` as the model writes, then `event: done` `{"message_id","status","usage","remaining","sources"}` or `event: error` `{"message_id","message"}`. Every event has an `id:`; `: ping` comments keep a silent connection open.';

/**
 * Streamed answers. The chat service generates in the background and publishes each event on
 * `chat.stream.<messageId>` (JetStream); this relays them as SSE. A client that goes away only stops
 * its reader: the answer keeps generating, and `.../stream` with Last-Event-ID picks it up again.
 */
export function createChatMessagesController({ rpc, reader, config, logger, auth }: { rpc: RpcClient; reader: ChatStreamReader; config: GatewayConfig; logger: Logger; auth: JwtAuthGuard }) {
  @ApiTags('ai-chat')
  @UseGuards(auth)
  @Controller('api/ai-chat/:id/messages')
  class ChatMessagesController {
    /** Live answer streams by user on this instance (sends and resumes). */
    private readonly liveStreams = new StreamsPerUser('live answer streams');

    /**
     * Counts one live answer stream of the signed-in user until the returned release is called. A resume
     * (`refuse`) beyond CHAT_STREAM_MAX_PER_USER is a 429: each holds a connection and a reader, and resuming is
     * free (150 of one answer had been 150 streams). A send is not refused here: the daily limit bounds sends, and
     * its message would be paid for and then not streamed. A keyed send's repeat streams an answer already counted,
     * as a resume does, and is capped like one.
     */
    private holdStream(refuse: boolean): () => void {
      return this.liveStreams.hold(currentContext()?.userId ?? '', refuse ? config.chatStreamMaxPerUser : undefined);
    }

    @Post()
    @ApiOperation({ summary: 'Send a message; the answer streams back', description: `${SSE_DESCRIPTION} \`context_data\` (portfolio_health): the client's metrics, numbers; volatility and max_drawdown enter the prompt.` })
    @ApiChatId()
    @ApiBody({ schema: openApiSchema(sendMessageBodySchema, 'input') })
    @ApiProduces('text/event-stream')
    @ApiOkResponse({ description: SSE_DESCRIPTION })
    @ApiChatLimited()
    @ApiOwnedResource({ validation: true, notFound: 'The chat' })
    @ApiIdempotencyKey({ repeat: 'streams the first answer again (its events from the start, live while it is still being written) and asks the model nothing; after a failed answer it asks again' })
    async send(@Param('id') id: string, @Body() body: unknown, @Headers(IDEMPOTENCY_KEY) key: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
      const input = parseBody(sendMessageBodySchema, body);
      const opts = idempotencyOptions(key);
      const hold = { release: this.holdStream(false) };
      try {
        await this.sendAndRelay(id, input, opts, req, reply, hold);
      } finally {
        hold.release();
      }
    }

    private async sendAndRelay(id: string, input: z.output<typeof sendMessageBodySchema>, opts: RpcCallOptions, req: FastifyRequest, reply: FastifyReply, hold: { release: () => void }): Promise<void> {
      // The gateway names the answer, so its subscription opens while the send is in flight.
      const messageId = randomUUID();
      const subscription = reader.open(messageId, 0);
      subscription.catch(() => undefined); // awaited below; this only keeps an early failure from being "unhandled"
      let sent: SendMessageReply;
      try {
        // Errors here (422, 404, 429) are ordinary JSON answers through the error filter.
        sent = await rpc.request<SendMessageReply>(Subjects.chat.messagesSend, { ...input, chat_id: id, message_id: messageId }, { timeoutMs: Math.max(config.rpcTimeoutMs, 20_000), ...opts });
      } catch (err) {
        void subscription.then((s) => s.close(), () => undefined);
        throw err;
      }
      if (sent.message_id !== messageId) {
        // A repeat of a keyed send: the first try's answer, from its first event. No model call and nothing counted
        // against the daily limit: a resume in all but name (15 repeats had been 15 streams past the cap of 10).
        void subscription.then((s) => s.close(), () => undefined);
        hold.release();
        hold.release = this.holdStream(true);
        return this.replay(req, reply, sent.chat_id, sent.message_id, 0);
      }
      let opened: AnswerSubscription;
      try {
        opened = await subscription;
      } catch (err) {
        // The message is sent and its answer is being generated, but JetStream does not let us read it yet (a
        // NATS node lost for longer than the retries): a 5xx would invite a second send. The client is told
        // to resume the answer instead.
        logger.warn({ err, messageId }, 'chat: the answer stream could not be opened; the client is told to resume it');
        reply.hijack();
        openSse(reply.raw);
        writeSse(reply.raw, { id: 0, event: 'error', data: { message_id: messageId, message: 'The answer stream was interrupted; resume it with Last-Event-ID.' } }, localeOf(req));
        reply.raw.end();
        return;
      }
      await this.relay(req, reply, messageId, opened, 0, () => this.storedEnd(id, messageId));
    }

    /**
     * The final event of an answer that is no longer being written, from its stored row (undefined while it is):
     * what a silent stream ends with when the final event never reached the replay buffer. The instance writing
     * the answer can die between storing it and publishing that event (the chaos test saw a reader wait for good).
     */
    private async storedEnd(chatId: string, messageId: string): Promise<ReturnType<typeof storedAnswerEvents>[number] | undefined> {
      const { data: msg } = await rpc.request<MessageReply>(Subjects.chat.messagesGet, { chat_id: chatId, message_id: messageId });
      return msg.status === 'streaming' ? undefined : storedAnswerEvents(msg, null).at(-1);
    }

    @Get(':messageId/stream')
    @ApiOperation({ summary: 'Resume an answer', description: `Replays the answer's events after \`Last-Event-ID\` (header, or \`last_event_id\` query) and continues live; a finished answer replays and closes. ${SSE_DESCRIPTION}` })
    @ApiChatId()
    @ApiMessageId()
    @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The `id:` of the last event received.' })
    @ApiProduces('text/event-stream')
    @ApiOkResponse({ description: SSE_DESCRIPTION })
    @ApiResponse({ status: 429, description: 'The user already holds `CHAT_STREAM_MAX_PER_USER` live answer streams on this gateway instance (`limit`); close one first.', schema: { type: 'object', properties: { message: { type: 'string' }, limit: { type: 'integer' } } } })
    @ApiOwnedResource({ notFound: 'The chat or message' })
    async resume(
      @Param('id') id: string,
      @Param('messageId') messageId: string,
      @Headers('last-event-id') lastEventId: string | undefined,
      @Req() req: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const after = parseLastEventId(lastEventId ?? (req.query as Record<string, unknown> | undefined)?.last_event_id);
      const release = this.holdStream(true);
      try {
        await this.replay(req, reply, id, messageId, after);
      } finally {
        release();
      }
    }

    /** An answer's events after `after` (from its replay buffer, or its stored text once that has expired), then live while it is written. */
    private async replay(req: FastifyRequest, reply: FastifyReply, id: string, messageId: string, after: number): Promise<void> {
      const { data: msg, user_message_id: userMessageId = null } = await rpc.request<MessageReply>(Subjects.chat.messagesGet, { chat_id: id, message_id: messageId });
      // The user's own message has no answer stream (stop and rating refuse it too).
      if (msg.role !== 'assistant') throw ServiceError.validation({ message_id: ['Only an answer of the assistant can be streamed.'] });
      const last = msg.status === 'streaming' ? undefined : await reader.lastEventSeq(msg.id);
      if (last === null || (last !== undefined && after >= last)) {
        // Finished: the replay buffer has expired (the stored answer, whole), or the client has every event already
        // (a reconnect after the final one: nothing more will come, so the stream ends at once).
        reply.hijack();
        openSse(reply.raw);
        if (last === null) for (const e of storedAnswerEvents(msg, userMessageId)) writeSse(reply.raw, e, localeOf(req));
        reply.raw.end();
        return;
      }
      const opened = await reader.open(msg.id, after).catch((err: unknown) => {
        logger.warn({ err, messageId: msg.id }, 'chat: the answer stream could not be opened');
        throw ServiceError.unavailable('The answer stream is not available right now; resume it again shortly.', 'not_done');
      });
      await this.relay(req, reply, msg.id, opened, after, () => this.storedEnd(id, msg.id));
    }

    @Post(':messageId/stop')
    @HttpCode(200)
    @ApiOperation({ summary: 'Stop an answer', description: 'Cancels the model call (the request to the model server is aborted) and keeps the partial answer with `status: stopped`. Stopping a finished answer changes nothing.' })
    @ApiChatId()
    @ApiMessageId()
    @ApiOkResponse({ schema: openApiSchema(messageReplySchema) })
    @ApiOwnedResource({ validation: true, notFound: 'The chat or message' })
    stop(@Param('id') id: string, @Param('messageId') messageId: string): Promise<MessageReply> {
      return rpc.request(Subjects.chat.messagesStop, { chat_id: id, message_id: messageId }, { timeoutMs: Math.max(config.rpcTimeoutMs, 10_000) });
    }

    /**
     * Relays the answer's events as SSE until its final event or the client leaves; heartbeats in silences. At a
     * heartbeat at least FINAL_EVENT_GRACE_MS after the last event, the stored answer is looked at too: finished
     * there, the stream ends with its final event (`storedEnd`) rather than wait for one that may never come.
     */
    private async relay(
      req: FastifyRequest,
      reply: FastifyReply,
      messageId: string,
      subscription: AnswerSubscription,
      afterSeq: number,
      storedEnd: () => Promise<ReturnType<typeof storedAnswerEvents>[number] | undefined>,
    ): Promise<void> {
      reply.hijack();
      const res = reply.raw;
      const locale = localeOf(req);
      openSse(res);
      const gone = new AbortController();
      // Ends the reading: the client left, or the stored answer is finished.
      const stop = new AbortController();
      res.on('close', () => {
        gone.abort();
        stop.abort();
      });
      let ended: ReturnType<typeof storedAnswerEvents>[number] | undefined;
      let heartbeat: NodeJS.Timeout | undefined;
      let lastEventAt = Date.now();
      let relayed = false;
      const beat = () => {
        clearTimeout(heartbeat);
        if (relayed) return;
        heartbeat = setTimeout(() => {
          if (!res.writableEnded) res.write(': ping\n\n');
          if (Date.now() - lastEventAt < FINAL_EVENT_GRACE_MS) return beat();
          storedEnd().then(
            (end) => {
              if (!end) return beat();
              ended = end;
              stop.abort();
            },
            (err: unknown) => {
              logger.warn({ err, messageId }, 'chat: the stored answer could not be read during a silence; asking again at the next heartbeat');
              beat();
            },
          );
        }, config.chatHeartbeatMs);
      };
      beat();
      let lastSeq = afterSeq;
      let final = false;
      try {
        for await (const e of subscription.events(stop.signal)) {
          writeSse(res, { id: e.seq, event: e.event.type, data: e.event.data }, locale);
          lastSeq = e.seq;
          lastEventAt = Date.now();
          final = e.event.type === 'done' || e.event.type === 'error';
          beat();
        }
        if (ended && !final && !gone.signal.aborted && !res.writableEnded) {
          logger.warn({ messageId, status: ended.event }, 'chat: the answer is finished but its final event never came; ended from the stored answer');
          writeSse(res, { ...ended, id: lastSeq }, locale);
        }
      } catch (err) {
        if (!gone.signal.aborted) {
          logger.error({ err, messageId, url: req.url }, 'chat: relaying the answer failed');
          // Its id is the last relayed event's, so a reconnect with it resumes exactly there.
          if (!res.writableEnded) writeSse(res, { id: lastSeq, event: 'error', data: { message_id: messageId, message: 'The answer stream was interrupted; resume it with Last-Event-ID.' } }, locale);
        }
      } finally {
        relayed = true;
        clearTimeout(heartbeat);
        if (!res.writableEnded) res.end();
      }
    }
  }
  return ChatMessagesController;
}

/** A stored answer as the events a live client would have seen (used once the replay buffer has expired). */
export function storedAnswerEvents(msg: MessageReply['data'], userMessageId: string | null): { id: number; event: ChatStreamEvent['type']; data: unknown }[] {
  const events: { id: number; event: ChatStreamEvent['type']; data: unknown }[] = [{ id: 1, event: 'start', data: { message_id: msg.id, user_message_id: userMessageId } }];
  if (msg.content) events.push({ id: 2, event: 'chunk', data: { content: msg.content } });
  events.push(
    msg.status === 'failed'
      ? { id: 3, event: 'error', data: { message_id: msg.id, message: 'The assistant could not answer. Please try again.' } }
      : { id: 3, event: 'done', data: { message_id: msg.id, status: msg.status, usage: msg.usage, remaining: null, sources: msg.sources ?? [] } },
  );
  return events;
}

export type { SequencedEvent };
