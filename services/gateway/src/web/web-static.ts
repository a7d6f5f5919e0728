import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Logger } from '@invest/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The built web client (`web/dist`) next to this package, from src/ (tests) or dist/ (runtime) alike. */
export const DEFAULT_WEB_DIST_DIR = new URL('../../../../web/dist', import.meta.url).pathname;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
/** Vite names built assets `name-<hash>.ext` under assets/: their bytes never change under one name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: a browser must revalidate it (cheaply, by ETag) every time. */
const REVALIDATE = 'no-cache';

interface WebFile {
  type: string;
  cacheControl: string;
  etag: string;
  body: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/** Paths the client never owns: the API, docs, probes. Anything else unknown is a client route (SPA fallback). */
export function isBackendPath(path: string): boolean {
  const p = path.toLowerCase();
  return p === '/api' || p.startsWith('/api/') || p === '/health' || p === '/ready';
}

/**
 * Reads every file of the build into memory: a few hundred KB, served without disk reads. The build writes
 * `.br` and `.gz` copies beside compressible files (scripts/build-web.mjs), so nothing is compressed here.
 */
export function loadWebFiles(dir: string): Map<string, WebFile> {
  const files = new Map<string, WebFile>();
  const variants = new Map<string, { gzip?: Buffer; br?: Buffer }>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const urlPath = '/' + relative(dir, full).split(sep).join('/');
    const ext = extname(entry.name).toLowerCase();
    const body = readFileSync(full);
    if (ext === '.br' || ext === '.gz') {
      const of = urlPath.slice(0, -ext.length);
      variants.set(of, { ...variants.get(of), [ext === '.br' ? 'br' : 'gzip']: body });
      continue;
    }
    files.set(urlPath, {
      type: TYPES[ext] ?? 'application/octet-stream',
      cacheControl: urlPath.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      body,
    });
  }
  for (const [path, v] of variants) {
    const file = files.get(path);
    if (file) Object.assign(file, v);
  }
  return files;
}

/**
 * The page's Content-Security-Policy: only this origin, but for the payment widget's (its script, the frames
 * it opens, the requests it makes).
 */
export function contentSecurityPolicy(widgetUrl: string | undefined): string {
  const widget = widgetUrl ? ` ${new URL(widgetUrl).origin}` : '';
  return `default-src 'self'; script-src 'self'${widget}; frame-src 'self'${widget}; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'${widget}; frame-ancestors 'none'; base-uri 'self'`;
}

function send(request: FastifyRequest, reply: FastifyReply, file: WebFile, csp: string): void {
  void reply.header('content-type', file.type).header('cache-control', file.cacheControl).header('etag', file.etag).header('vary', 'accept-encoding');
  // Only HTML documents get the page's security headers; scripts and styles inherit the document's policy.
  if (file.type.startsWith('text/html')) {
    void reply
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('content-security-policy', csp);
  }
  if (request.headers['if-none-match'] === file.etag) {
    void reply.code(304).send();
    return;
  }
  const accepted = String(request.headers['accept-encoding'] ?? '');
  let body = file.body;
  if (file.br && /\bbr\b/.test(accepted)) {
    body = file.br;
    void reply.header('content-encoding', 'br');
  } else if (file.gzip && /\bgzip\b/.test(accepted)) {
    body = file.gzip;
    void reply.header('content-encoding', 'gzip');
  }
  void reply.code(200).header('content-length', body.length);
  void reply.send(request.method === 'HEAD' ? undefined : body);
}

/**
 * Serves the web client at `/` from memory: built files as they are (hashed assets cached for a year,
 * index.html revalidated), and index.html for any other GET outside the API so client routes survive a reload.
 * Without a build (`web/dist` missing) nothing is served and the API works as before.
 */
export function installWebClient(fastify: FastifyInstance, dir: string, logger: Logger, widgetUrl?: string): boolean {
  if (!dir || !existsSync(join(dir, 'index.html')) || !statSync(dir).isDirectory()) {
    logger.info({ dir }, 'web client not built: / serves the API only (run npm run build)');
    return false;
  }
  const files = loadWebFiles(dir);
  const index = files.get('/index.html')!;
  const csp = contentSecurityPolicy(widgetUrl);
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return done();
    const path = request.url.split('?', 1)[0]!;
    if (isBackendPath(path)) return done();
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return done();
    }
    const file = files.get(decoded === '/' ? '/index.html' : decoded);
    if (file) return send(request, reply, file, csp);
    // A missing asset is a 404, not a page: a stale index.html must not get HTML for a script. Built assets lie
    // directly under /assets/; a deeper path there is a page (`/assets/<type>/<ticker>`, a ticker may hold a dot).
    if (/^\/assets\/[^/]*$/.test(decoded) || (!decoded.startsWith('/assets/') && extname(decoded) !== '')) return done();
    send(request, reply, index, csp);
  });
  logger.debug({ dir, files: files.size }, 'web client served at /');
  return true;
}
