// ESLint rule `local/service-boundaries`: a service's source never imports another service's source.
// Services talk over NATS through `@invest/contracts`; code they share belongs in `platform/`.
// Tests (`services/<name>/test/**`, `*.test.ts`, `src/testing/**`) may start another service: they may
// import its app factory (`@invest/<other>/<other>.app`) and its test kit (`@invest/<other>/testing/*`).
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = dirname(dirname(new URL(import.meta.url).pathname));
const servicesDir = join(root, 'services');
const services = new Set(readdirSync(servicesDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));

const e2eDir = join(root, 'test', 'e2e');
const isE2e = (file) => !relative(e2eDir, file).startsWith('..');

/** The service a file belongs to, or undefined outside services/. */
function serviceOf(file) {
  const rel = relative(servicesDir, file);
  if (rel.startsWith('..')) return undefined;
  const name = rel.split(sep)[0];
  return services.has(name) ? name : undefined;
}

function isTestFile(file, service) {
  const rel = relative(join(servicesDir, service), file).split(sep).join('/');
  return rel.startsWith('test/') || rel.startsWith('src/testing/') || /\.test\.ts$/.test(rel);
}

/** @type {import('eslint').Rule.RuleModule} */
export const serviceBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "A service's source never imports another service's source (tests may use its app factory and test kit)." },
    messages: {
      crossService:
        "'{{source}}': {{service}} must not import {{other}}'s source. Talk to it over NATS with @invest/contracts; shared code belongs in platform/.",
      crossServiceTest:
        "'{{source}}': a test of {{service}} may import only {{other}}'s app factory (@invest/{{other}}/{{other}}.app) and test kit (@invest/{{other}}/testing/*).",
      relativeIntoService: "'{{source}}' reaches into {{other}}'s directory by a relative path; import it as @invest/{{other}}/... if at all.",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    // An end-to-end test (test/e2e) is a test of no one service: it may use every service's app factory and
    // test kit, as a service's own tests may use another's.
    const service = serviceOf(file) ?? (isE2e(file) ? 'e2e' : undefined);
    if (!service) return {};
    const test = service === 'e2e' || isTestFile(file, service);

    function check(node) {
      const source = node.source && node.source.type === 'Literal' ? node.source.value : undefined;
      if (typeof source !== 'string') return;
      const data = { source, service };
      if (source.startsWith('.')) {
        const other = serviceOf(resolve(dirname(file), source));
        if (other && other !== service) context.report({ node: node.source, messageId: 'relativeIntoService', data: { ...data, other } });
        return;
      }
      const m = /^@invest\/([^/]+)(?:\/(.*))?$/.exec(source);
      if (!m || !services.has(m[1]) || m[1] === service) return;
      const other = m[1];
      const subpath = m[2] ?? '';
      if (!test) {
        context.report({ node: node.source, messageId: 'crossService', data: { ...data, other } });
      } else if (subpath !== `${other}.app` && !subpath.startsWith('testing/')) {
        context.report({ node: node.source, messageId: 'crossServiceTest', data: { ...data, other } });
      }
    }

    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};
