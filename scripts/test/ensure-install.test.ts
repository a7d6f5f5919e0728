/**
 * scripts/ensure-install.mjs in a scratch copy of a project, with a stand-in `npm` first on PATH that says
 * what a real install on an old Node says (EBADENGINE blocks), or fails the way a real one does.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const scripts = join(import.meta.dirname, '..');

const EBADENGINE = `npm warn EBADENGINE Unsupported engine {
npm warn EBADENGINE   package: 'invest-tracker@undefined',
npm warn EBADENGINE   required: { node: '>=24 <25' },
npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }
npm warn EBADENGINE }`;

// What npm prints on a good install from an old Node (engine warnings, one other warning, a summary), or
// on a failed one; a good one also brings the project's Node.
const FAKE_NPM = `#!/bin/sh
if [ "$FAKE_NPM" = fail ]; then
  echo "npm error code E404" >&2
  echo "npm error 404 Not Found - GET https://registry.npmjs.org/nope - Not found" >&2
  exit 1
fi
for i in 1 2 3; do cat >&2 <<'EOF'
${EBADENGINE}
EOF
done
echo "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported" >&2
mkdir -p node_modules/.bin && ln -sf "$FAKE_NODE" node_modules/.bin/node
echo "added 3 packages in 1s"
`;

// Stands in for the SWC build: records each run, writes dist/ and the stamp as the real one does.
const FAKE_BUILD = `import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildFingerprint, writeBuildStamp } from './build-stamp.mjs';
const root = new URL('..', import.meta.url).pathname;
appendFileSync(join(root, 'builds.log'), 'built\\n');
mkdirSync(join(root, 'pkg', 'dist'), { recursive: true });
writeBuildStamp(root, buildFingerprint(root));
`;

describe('ensure-install', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ensure-install-'));
    mkdirSync(join(dir, 'scripts'));
    for (const f of ['ensure-install.mjs', 'build-stamp.mjs']) copyFileSync(join(scripts, f), join(dir, 'scripts', f));
    writeFileSync(join(dir, 'scripts', 'build.mjs'), FAKE_BUILD);
    // The project's Node is one the running Node is not, as when npm runs on Node 20.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, workspaces: ['pkg'], devDependencies: { node: '99.0.0' } }));
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    mkdirSync(join(dir, 'pkg', 'src'), { recursive: true });
    writeFileSync(join(dir, 'pkg', 'src', 'a.ts'), 'export const a = 1;\n');
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'npm'), FAKE_NPM);
    chmodSync(join(dir, 'bin', 'npm'), 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[] = [], extra: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(dir, 'scripts', 'ensure-install.mjs'), ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, FAKE_NODE: process.execPath, ...extra },
    });
    return { status: r.status, out: r.stdout + r.stderr };
  };
  const builds = () => (existsSync(join(dir, 'builds.log')) ? readFileSync(join(dir, 'builds.log'), 'utf8').split('\n').filter(Boolean).length : 0);

  it('hides the EBADENGINE blocks, says once which Node runs the project, and keeps everything else', () => {
    const { status, out } = run();
    expect(status).toBe(0);
    expect(out).not.toContain('EBADENGINE Unsupported');
    expect(out.match(/the project runs on its own Node 99\.0\.0/g)).toHaveLength(1);
    expect(out).toContain(`npm runs on Node ${process.version}`);
    expect(out).toContain('npm warn deprecated glob@7.2.3');
    expect(out).toContain('added 3 packages');
    // Installed: the next run installs nothing and says nothing.
    expect(run()).toEqual({ status: 0, out: '' });
  });

  it('shows a failed install with npm’s own error lines and fails', () => {
    const { status, out } = run([], { FAKE_NPM: 'fail' });
    expect(status).toBe(1);
    expect(out).toContain('npm error code E404');
    expect(out).toContain('npm error 404 Not Found');
    expect(out).toContain('[setup] npm install failed (exit 1)');
  });

  it('with --build, compiles only when a compiled source changed since the last build', () => {
    expect(run(['--build']).status).toBe(0);
    expect(builds()).toBe(1);
    expect(run(['--build'])).toEqual({ status: 0, out: '' });
    expect(builds()).toBe(1);

    // A test file is not compiled: no build.
    writeFileSync(join(dir, 'pkg', 'src', 'a.test.ts'), 'export {};\n');
    run(['--build']);
    expect(builds()).toBe(1);

    // A source saved again (same size, new time), a new one, a deleted one, a missing dist/: each builds.
    utimesSync(join(dir, 'pkg', 'src', 'a.ts'), new Date(), new Date(Date.now() + 5_000));
    run(['--build']);
    expect(builds()).toBe(2);
    writeFileSync(join(dir, 'pkg', 'src', 'b.ts'), 'export const b = 2;\n');
    run(['--build']);
    expect(builds()).toBe(3);
    rmSync(join(dir, 'pkg', 'src', 'b.ts'));
    run(['--build']);
    expect(builds()).toBe(4);
    rmSync(join(dir, 'pkg', 'dist'), { recursive: true });
    run(['--build']);
    expect(builds()).toBe(5);
    run(['--build']);
    expect(builds()).toBe(5);
  });
});
