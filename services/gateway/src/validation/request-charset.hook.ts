import type { FastifyInstance } from 'fastify';

/** The `charset` parameter of a Content-Type header (lower case, unquoted), or undefined when there is none. */
export function contentTypeCharset(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const match = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType);
  return match ? (match[2] ?? match[1]!).toLowerCase() : undefined;
}

/**
 * Fastify decodes every JSON body as UTF-8 whatever its charset says, so `charset=latin1` text would be stored
 * mangled. A body declared in any other charset is a 415 before it is read. Paths under `rawBodyPrefix` are left
 * alone: their bodies are handed on as bytes, never decoded here (provider notifications, checked by signature).
 */
export function installRequestCharsetHook(fastify: FastifyInstance, rawBodyPrefix: string): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith(rawBodyPrefix)) return done();
    const charset = contentTypeCharset(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      void reply.code(415).send({ message: 'The request body must be encoded as UTF-8 (charset=utf-8).' });
      return;
    }
    done();
  });
}
