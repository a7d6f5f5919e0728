export { createChatApp, type ChatApp, type ChatAppOptions } from './chat.app.js';
