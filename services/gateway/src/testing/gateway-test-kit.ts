// What end-to-end tests (test/e2e) use of the gateway besides its app factory: dev tokens and the paging links
// it compares with. The objects a test watches are fields of the app (`gw.rpc`, `gw.feed`).
export { mintDevToken } from '../auth/dev-token.js';
export { withLinks } from '../paging/page-links.js';
