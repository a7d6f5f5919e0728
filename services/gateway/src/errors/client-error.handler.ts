import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '@invest/platform';
import { correlationIdFrom, REQUEST_ID_HEADER } from '../correlation/correlation-id.js';

/** Status and Laravel-shaped message of a request Node's HTTP parser refused, by the parser's error code. */
export function clientErrorAnswer(code: string | undefined): { status: number; reason: string; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', message: 'The request was not received in time.' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request line or headers are too large.' };
    default:
      return { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP.' };
  }
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a malformed request line, Content-Length
 * with Transfer-Encoding, headers or URL over the size limit, a request not received within the timeouts)
 * never becomes a request, so no hook or filter sees it. It gets the Laravel shape and a request id here,
 * written on the raw socket, which is then closed. The id is always fresh: the headers could not be read.
 */
export function clientErrorHandler(logger: Logger) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has nobody left to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, reason, message } = clientErrorAnswer(err.code);
    const correlationId = randomUUID();
    logger.info({ correlationId, status, reason: err.code ?? err.message }, 'client error');
    // A response already under way (headers sent) cannot be replaced by another one.
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${correlationId}\r\nConnection: close\r\n\r\n${body}`,
    );
    // A client that never reads its answer does not keep the connection: it is cut soon after.
    setTimeout(() => socket.destroy(), 1000).unref();
  };
}

/**
 * Node answers an `Expect` header other than `100-continue` itself with an empty 417 before any hook runs.
 * With a listener it leaves the answer to us: the Laravel shape and a request id, like every other error.
 */
export function answerUnmetExpectations(server: Server, logger: Logger): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const correlationId = correlationIdFrom(request.headers[REQUEST_ID_HEADER]);
    logger.debug({ correlationId, method: request.method, url: request.url, status: 417 }, 'request');
    const body = JSON.stringify({ message: 'Only the expectation 100-continue is supported.' });
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      [REQUEST_ID_HEADER]: correlationId,
      connection: 'close',
    });
    response.end(body);
  });
}
