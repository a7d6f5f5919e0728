import { type DynamicModule, Module } from '@nestjs/common';
import { createHealthController, resourcesShutdownProvider } from '@invest/platform';
import { ChatHandler } from './chats/chat.handler.js';
import type { ChatService } from './chats/chat.service.js';
import { CHAT_SERVICE } from './chat.tokens.js';

/** The NATS handlers of the chat service, wired to services built (and owned) by createChatApp. */
@Module({})
export class ChatModule {
  static register(s: { chat: ChatService; stopResources(): Promise<void> }): DynamicModule {
    return {
      module: ChatModule,
      controllers: [createHealthController('chat'), ChatHandler],
      providers: [
        { provide: CHAT_SERVICE, useValue: s.chat },
        resourcesShutdownProvider(s.stopResources),
      ],
    };
  }
}
