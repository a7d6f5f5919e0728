/**
 * `node services/gateway/dist/docs/openapi.command.js <file>`: writes the gateway's OpenAPI document (the one
 * served at /api/docs-json) to `<file>` without starting a server or needing NATS. The build runs it so the web
 * client's API types are generated from the routes as they are (scripts/build-web.mjs).
 */
import { writeFileSync } from 'node:fs';
import { SwaggerModule } from '@nestjs/swagger';
import { createLogger } from '@invest/platform';
import { createGatewayApp } from '../gateway.app.js';
import { openApiConfig } from './openapi.setup.js';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: openapi.command.js <output.json>\n');
  process.exit(64);
}
// Port 1 refuses at once: the app starts without NATS (as it would in production) and the document is the same.
const gateway = await createGatewayApp({ natsUrl: 'nats://127.0.0.1:1', webDistDir: '', logger: createLogger('openapi', 'fatal') });
try {
  const document = SwaggerModule.createDocument(gateway.app, openApiConfig());
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
} finally {
  await gateway.close();
}
