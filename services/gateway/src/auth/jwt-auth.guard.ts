import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { ErrorCode } from '@invest/contracts';
import { currentContext, ServiceError, type Logger } from '@invest/platform';
import type { FastifyRequest } from 'fastify';
import { AuthKeysUnavailableError, bearerToken, type AuthenticatedUser, type JwtVerifier } from './jwt-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by JwtAuthGuard on authenticated routes. */
    user?: AuthenticatedUser;
  }
}

const unauthenticated = () => new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');

/**
 * Requires `Authorization: Bearer <JWT>`. The token's `sub` becomes the user id of the request
 * context, so every log line and every NATS request of this request carries it (`meta.userId`). One instance,
 * built by createGatewayApp, guards every route that needs a user (`@UseGuards(auth)`).
 */
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly verifier: JwtVerifier,
    private readonly logger: Logger,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const token = bearerToken(request.headers.authorization);
    if (!token) {
      this.logger.debug({ reason: request.headers.authorization ? 'malformed header' : 'no header' }, 'unauthenticated');
      throw unauthenticated();
    }
    let user: AuthenticatedUser;
    try {
      user = await this.verifier.verify(token);
    } catch (err) {
      if (err instanceof AuthKeysUnavailableError) {
        this.logger.error({ reason: err.message }, 'cannot verify tokens: JWKS unavailable');
        throw ServiceError.unavailable(err.message);
      }
      this.logger.info({ reason: (err as Error).message }, 'token rejected');
      throw unauthenticated();
    }
    request.user = user;
    // The context object is shared by the whole request: later logs and RPC calls see the user.
    const ctx = currentContext() ?? request.ctx;
    if (ctx) ctx.userId = user.id;
    return true;
  }
}

/**
 * For routes that answer anyone but say more to a signed-in user (the asset search adds the user's own custom
 * assets): no `Authorization` header passes as anonymous; a header present is checked as JwtAuthGuard checks
 * it (a bad or expired token is a 401, never read as anonymous).
 */
export class OptionalJwtAuthGuard implements CanActivate {
  constructor(private readonly auth: JwtAuthGuard) {}

  canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.headers.authorization === undefined) return true;
    return this.auth.canActivate(context);
  }
}
