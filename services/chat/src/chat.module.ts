import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createHealthController } from '@invest/platform';
import { ChatHandler } from './chats/chat.handler.js';
import type { ChatService } from './chats/chat.service.js';
import { CHAT_SERVICE } from './chat.tokens.js';

const RESOURCES = Symbol('CHAT_RESOURCES');

/** Ties the service's background work to Nest's lifecycle: app.close() and SIGINT/SIGTERM stop it too. */
class ResourcesShutdown implements OnApplicationShutdown {
  constructor(private readonly stop: () => Promise<void>) {}
  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}

/** The NATS handlers of the chat service, wired to services built (and owned) by createChatApp. */
@Module({})
export class ChatModule {
  static register(s: { chat: ChatService; stopResources(): Promise<void> }): DynamicModule {
    return {
      module: ChatModule,
      controllers: [createHealthController('chat'), ChatHandler],
      providers: [
        { provide: CHAT_SERVICE, useValue: s.chat },
        { provide: RESOURCES, useValue: new ResourcesShutdown(s.stopResources) },
      ],
    };
  }
}
