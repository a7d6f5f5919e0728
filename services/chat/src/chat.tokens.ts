/** Dependency-injection tokens of the chat service (plain objects built in createChatApp). */
export const CHAT_SERVICE = Symbol('CHAT_SERVICE');
