// Installs a Debian package the tests need (chromium, prometheus) with apt-get, as root or through
// passwordless sudo: the one install path of ensure-chromium.mjs and ensure-prometheus.mjs.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

export function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `apt-get install -y --no-install-recommends <pkg>`, with `apt-get update` and one retry when it fails.
 * `tag` prefixes the log lines; `missing` is the error said when root is not available.
 */
export function aptInstall(pkg, { log, tag, missing }) {
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  if (!asRoot && spawnSync('sudo', ['-n', 'true']).status !== 0) throw new Error(missing);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Several test runs (or helpers) may install at once: wait for dpkg's lock instead of failing on it.
  const apt = (args) => {
    const [cmd, ...rest] = [...sudo, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', ...args];
    return spawnSync(cmd, rest, { stdio: 'inherit', env });
  };
  log(`${tag} installing Debian ${pkg} (apt-get install -y ${pkg}); once per machine`);
  let r = apt(['install', '-y', '--no-install-recommends', pkg]);
  if (r.status !== 0) {
    // A clean image (CI) has no package lists yet: fetch them, then try again.
    log(`${tag} apt-get install failed; running apt-get update and retrying`);
    apt(['update']);
    r = apt(['install', '-y', '--no-install-recommends', pkg]);
  }
  if (r.status !== 0) throw new Error(`apt-get install ${pkg} failed (exit ${r.status ?? r.signal})`);
}
