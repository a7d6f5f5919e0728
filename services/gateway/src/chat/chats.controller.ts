import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  type ChatLimitsReply,
  chatLimitsReplySchema,
  type ChatReply,
  chatReplySchema,
  chatSchema,
  type ChatView,
  type ChatWithMessagesPageReply,
  type ChatWithMessagesReply,
  chatWithMessagesReplySchema,
  createChatRequestSchema,
  type MessageReply,
  messageReplySchema,
  type Page,
  pageQuerySchema,
  rateMessageBodySchema,
  Subjects,
  updateChatBodySchema,
} from '@invest/contracts';
import type { RpcClient } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import type { JwtAuthGuard } from '../auth/jwt-auth.guard.js';
import type { GatewayConfig } from '../config/gateway.config.js';
import { openApiSchema, pageSchema } from '../docs/openapi.schemas.js';
import { allPages } from '../paging/all-pages.js';
import { type LinkedPage, withLinks } from '../paging/page-links.js';
import { ApiOwnedResource } from '../common/resource.openapi.js';
import { parseBody, parseQuery } from '../validation/request-input.js';

export const ApiChatId = () => ApiParam({ name: 'id', description: 'Chat id (UUID).', schema: { type: 'string', format: 'uuid' } });
const limited = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    code: { type: 'string', description: '`message_limit` or `token_budget`' },
    limit: { type: 'integer' },
    resets_at: { type: 'string', format: 'date-time' },
  },
} as const;
export const ApiChatLimited = () =>
  ApiResponse({
    status: 429,
    description: "The day's free messages of this context (`code: message_limit`) or the user's daily token budget (`code: token_budget`) are used up (`limit`, `resets_at`).",
    schema: limited,
  });

/** The signed-in user's AI chats: create, list, read (with messages), rename, delete, rate answers, limits. */
export function createChatsController({ rpc, config, auth }: { rpc: RpcClient; config: GatewayConfig; auth: JwtAuthGuard }) {
  @ApiTags('ai-chat')
  @UseGuards(auth)
  @Controller('api/ai-chat')
  class ChatsController {
    @Post()
    @ApiOperation({
      summary: 'Open a chat',
      description:
        '`context_type`: portfolio_health (`context_id`: one of your portfolios) or support (no `context_id`). A portfolio has one health chat: opening it again answers that chat (201, the same id, its title) to continue; a support chat is always new. The title comes from the first message.',
    })
    @ApiBody({ schema: openApiSchema(createChatRequestSchema, 'input') })
    @ApiCreatedResponse({ schema: openApiSchema(chatReplySchema) })
    @ApiOwnedResource({ validation: true })
    create(@Body() body: unknown): Promise<ChatReply> {
      return rpc.request(Subjects.chat.chatsCreate, parseBody(createChatRequestSchema, body));
    }

    @Get()
    @ApiOperation({ summary: 'Your chats', description: 'Most recently active first; paged (`page`, `per_page`).' })
    @ApiOkResponse({ schema: pageSchema(openApiSchema(chatSchema)) })
    @ApiOwnedResource({ validation: true })
    async list(@Query() query: Record<string, unknown>, @Req() req: FastifyRequest): Promise<LinkedPage<ChatView>> {
      const page = await rpc.request<Page<ChatView>>(Subjects.chat.chatsList, parseQuery(pageQuerySchema, query));
      return withLinks(page, req.url, config.publicBaseUrl);
    }

    // Declared before ':id' so "limits" is never taken for a chat id.
    @Get('limits')
    @ApiOperation({ summary: 'Free message limits', description: 'Per context: answers allowed this `MARKET_TZ` day (`null`: unlimited), used, remaining, and when the count resets. `tokens`: the daily token budget of the user, all contexts together, counted the same way.' })
    @ApiOkResponse({ schema: openApiSchema(chatLimitsReplySchema) })
    @ApiOwnedResource()
    limits(): Promise<ChatLimitsReply> {
      return rpc.request(Subjects.chat.limitsGet, {});
    }

    @Get(':id')
    @ApiOperation({ summary: 'One chat with its messages', description: 'An answer still being generated has `status: streaming`; resume it with `GET /api/ai-chat/{id}/messages/{messageId}/stream`.' })
    @ApiChatId()
    @ApiOkResponse({ schema: openApiSchema(chatWithMessagesReplySchema) })
    @ApiOwnedResource({ notFound: 'The chat' })
    async get(@Param('id') id: string): Promise<ChatWithMessagesReply> {
      // Page by page: a long chat's messages are more than one NATS message holds (its replies are ~512 KB at most).
      const subject = Subjects.chat.chatsGet;
      const pages = await allPages(
        subject,
        (after) => rpc.request<ChatWithMessagesPageReply>(subject, after === undefined ? { id } : { id, after_seq: after }),
        (page) => page.next_after_seq,
      );
      return { data: { ...pages[0]!.data, messages: pages.flatMap((page) => page.data.messages) } };
    }

    @Patch(':id')
    @ApiOperation({ summary: 'Rename a chat' })
    @ApiChatId()
    @ApiBody({ schema: openApiSchema(updateChatBodySchema, 'input') })
    @ApiOkResponse({ schema: openApiSchema(chatReplySchema) })
    @ApiOwnedResource({ validation: true, notFound: 'The chat' })
    update(@Param('id') id: string, @Body() body: unknown): Promise<ChatReply> {
      return rpc.request(Subjects.chat.chatsUpdate, { ...parseBody(updateChatBodySchema, body), id });
    }

    @Delete(':id')
    @HttpCode(204)
    @ApiOperation({ summary: 'Delete a chat', description: "Its answers still count against today's limit." })
    @ApiChatId()
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiOwnedResource({ notFound: 'The chat' })
    async delete(@Param('id') id: string): Promise<void> {
      await rpc.request(Subjects.chat.chatsDelete, { id });
    }

    @Post(':id/messages/:messageId/rating')
    @HttpCode(200)
    @ApiOperation({ summary: "Rate an assistant's answer", description: '`rating`: like or dislike; optional `rating_comment`. Rating again replaces the rating.' })
    @ApiChatId()
    @ApiParam({ name: 'messageId', description: 'Message id (UUID).', schema: { type: 'string', format: 'uuid' } })
    @ApiBody({ schema: openApiSchema(rateMessageBodySchema, 'input') })
    @ApiOkResponse({ schema: openApiSchema(messageReplySchema) })
    @ApiOwnedResource({ validation: true, notFound: 'The chat or message' })
    rate(@Param('id') id: string, @Param('messageId') messageId: string, @Body() body: unknown): Promise<MessageReply> {
      return rpc.request(Subjects.chat.messagesRate, { ...parseBody(rateMessageBodySchema, body), chat_id: id, message_id: messageId });
    }
  }
  return ChatsController;
}
