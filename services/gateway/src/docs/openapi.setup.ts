import { loadPackage } from '@nestjs/common/internal';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export const DOCS_PATH = 'api/docs';
export const DOCS_JSON_PATH = 'api/docs-json';

/** OpenAPI document of every route, served as JSON at /api/docs-json and as Swagger UI at /api/docs. */
export async function setupOpenApi(app: NestFastifyApplication): Promise<void> {
  // Swagger UI assets are served with @fastify/static, an optional peer of @nestjs/swagger that npm
  // installs under services/gateway/node_modules, out of reach of @nestjs/swagger's own import().
  // Nest's package loader caches by name: loading it from here first lets SwaggerModule find it.
  await loadPackage('@fastify/static', 'Swagger UI (gateway)', () => import('@fastify/static'));
  const config = new DocumentBuilder()
    .setTitle('Invest tracker API')
    .setDescription(
      'HTTP edge of the investment tracker. Errors are Laravel-shaped: `{"message": "...", "errors": {"field": ["..."]}}`. ' +
        'Every response carries `X-Request-Id` (send one to correlate your logs with ours).',
    )
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: DOCS_JSON_PATH, yamlDocumentUrl: 'api/docs-yaml' });
}
