import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { idempotencyKeyOf, requireUser } from '@invest/platform';
import type { ChatService } from './chat.service.js';

/** `chat.*`: the signed-in user's chats, messages (answers stream on `chat.stream.<messageId>`) and limits. */
export function createChatHandler(chat: ChatService) {
  @Controller()
  class ChatHandler {
    @MessagePattern(Subjects.chat.chatsCreate)
    create(@Payload() req: RpcRequest<unknown>) {
      return chat.create(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.chatsList)
    list(@Payload() req: RpcRequest<unknown>) {
      return chat.list(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.chatsGet)
    get(@Payload() req: RpcRequest<unknown>) {
      return chat.get(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.chatsUpdate)
    update(@Payload() req: RpcRequest<unknown>) {
      return chat.update(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.chatsDelete)
    delete(@Payload() req: RpcRequest<unknown>) {
      return chat.delete(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.messagesSend)
    send(@Payload() req: RpcRequest<unknown>) {
      return chat.send(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.chat.messagesGet)
    message(@Payload() req: RpcRequest<unknown>) {
      return chat.getMessage(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.messagesStop)
    stop(@Payload() req: RpcRequest<unknown>) {
      return chat.stop(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.messagesRate)
    rate(@Payload() req: RpcRequest<unknown>) {
      return chat.rate(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.chat.limitsGet)
    limits(@Payload() req: RpcRequest<unknown>) {
      return chat.limitsOf(requireUser(req.meta));
    }
  }
  return ChatHandler;
}
