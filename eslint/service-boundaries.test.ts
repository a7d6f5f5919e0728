import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Lints snippets as if they were files of a service, with the repository's own eslint.config.js.
const root = join(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });
const boundaryErrors = async (file: string, code: string) => {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'local/service-boundaries').map((m) => m.message);
};

describe('ESLint service boundaries', () => {
  it("refuses another service's source in a service's source", async () => {
    const errors = await boundaryErrors(
      'services/portfolios/src/deals/example.ts',
      "import { buildListSharesSql } from '@invest/screener/shares/list-shares.query';\nexport const x = buildListSharesSql;\n",
    );
    expect(errors).toEqual([expect.stringContaining('portfolios must not import screener')]);
    expect(await boundaryErrors('services/gateway/src/example.ts', "export * from '@invest/portfolios';\n")).toHaveLength(1);
    expect(await boundaryErrors('services/gateway/src/example.ts', "export const m = () => import('@invest/screener/screener.app');\n")).toHaveLength(1);
  });

  it("refuses a relative path into another service's directory, from tests too", async () => {
    const code = "import { migrations } from '../../../screener/src/migrations/index.js';\nexport const m = migrations;\n";
    expect(await boundaryErrors('services/portfolios/src/deals/example.ts', code)).toEqual([expect.stringContaining("reaches into screener's directory")]);
    expect(await boundaryErrors('services/portfolios/test/example.e2e.test.ts', code.replace('../../../', '../../'))).toHaveLength(1);
  });

  it("lets tests start another service through its app factory and test kit, and nothing else", async () => {
    const allowed = [
      "import { createScreenerApp } from '@invest/screener/screener.app';",
      "import { publishRates } from '@invest/portfolios/testing/portfolios-test-kit';",
      'export const used = [createScreenerApp, publishRates];',
    ].join('\n');
    expect(await boundaryErrors('services/gateway/test/example.e2e.test.ts', allowed)).toEqual([]);
    expect(await boundaryErrors('services/gateway/src/custom-assets/example.test.ts', allowed)).toEqual([]);
    const internal = "import { StatisticsService } from '@invest/portfolios/statistics/statistics.service';\nexport const s = StatisticsService;\n";
    expect(await boundaryErrors('services/gateway/test/example.e2e.test.ts', internal)).toEqual([expect.stringContaining('may import only portfolios')]);
    // End-to-end tests (test/e2e) follow the same rule for every service.
    expect(await boundaryErrors('test/e2e/alerts/example.e2e.test.ts', allowed)).toEqual([]);
    expect(await boundaryErrors('test/e2e/alerts/example.e2e.test.ts', internal)).toEqual([expect.stringContaining('may import only portfolios')]);
    expect(await boundaryErrors('test/e2e/alerts/example.e2e.test.ts', "import { x } from '../../../services/chat/src/x.js';\nexport const y = x;\n")).toEqual([
      expect.stringContaining("reaches into chat's directory"),
    ]);
  });

  it('leaves a service its own source, platform and contracts', async () => {
    const code = [
      "import { Subjects } from '@invest/contracts';",
      "import { ServiceError } from '@invest/platform';",
      "import { createPortfoliosApp } from '../portfolios.app.js';",
      'export const used = [Subjects, ServiceError, createPortfoliosApp];',
    ].join('\n');
    expect(await boundaryErrors('services/portfolios/src/deals/example.ts', code)).toEqual([]);
  });
});
