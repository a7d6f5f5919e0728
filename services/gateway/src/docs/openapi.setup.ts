import { loadPackage } from '@nestjs/common/internal';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export const DOCS_PATH = 'api/docs';
export const DOCS_JSON_PATH = 'api/docs-json';

/**
 * What Swagger UI's page loads. @nestjs/swagger serves the whole swagger-ui-dist folder under the docs path
 * (package.json, README, source maps, a second copy under /api/docs/docs/), which tells anyone the exact
 * dependency versions; everything else under the path is a 404.
 */
const UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui-init.js', 'favicon-32x32.png', 'favicon-16x16.png', '']);

/** Title, description, version and security scheme of the gateway's OpenAPI document. */
export function openApiConfig() {
  return new DocumentBuilder()
    .setTitle('Invest tracker API')
    .setDescription(
      'HTTP edge of the investment tracker. Errors are Laravel-shaped: `{"message": "...", "errors": {"field": ["..."]}}`. ' +
        'Every response carries `X-Request-Id` (send one to correlate your logs with ours).',
    )
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
}

/** OpenAPI document of every route, served as JSON at /api/docs-json and as Swagger UI at /api/docs. */
export async function setupOpenApi(app: NestFastifyApplication): Promise<void> {
  // Swagger UI assets are served with @fastify/static, an optional peer of @nestjs/swagger that npm
  // installs under services/gateway/node_modules, out of reach of @nestjs/swagger's own import().
  // Nest's package loader caches by name: loading it from here first lets SwaggerModule find it.
  await loadPackage('@fastify/static', 'Swagger UI (gateway)', () => import('@fastify/static'));
  const config = openApiConfig();
  const prefix = `/${DOCS_PATH}/`;
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, reply, done) => {
      const path = request.url.split('?', 1)[0]!;
      if (path.toLowerCase().startsWith(prefix) && !UI_FILES.has(safeDecode(path.slice(prefix.length)) ?? '/')) {
        void reply.code(404).send({ message: 'Not Found.' });
        return;
      }
      done();
    });
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: DOCS_JSON_PATH, yamlDocumentUrl: 'api/docs-yaml' });
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
