export * from './gateway.app.js';
export * from './config/gateway.config.js';
export { createJwtVerifier, bearerToken, InvalidTokenError, AuthKeysUnavailableError, type JwtVerifier, type AuthenticatedUser } from './auth/jwt-verifier.js';
export { mintDevToken, DEV_TOKEN_TTL } from './auth/dev-token.js';
export { toHttpError, STATUS_BY_CODE, type HttpError, type HttpErrorBody } from './errors/http-error.mapping.js';
export { pageLinks, withLinks, type PageLinks, type LinkedPage } from './paging/page-links.js';
