// What end-to-end tests (test/e2e) use of the gateway besides its app factory: dev tokens, the DI tokens of
// the objects a test watches, and the paging links it compares with.
export { mintDevToken } from '../auth/dev-token.js';
export { NOTIFICATION_FEED, type NotificationFeed } from '../alerts/notification-feed.js';
export { RPC_CLIENT } from '../gateway.tokens.js';
export { withLinks } from '../paging/page-links.js';
