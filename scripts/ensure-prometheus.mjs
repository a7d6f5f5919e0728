#!/usr/bin/env node
// Makes sure the Prometheus that the observability tests run (and its promtool) is installed: Debian's
// `prometheus` package, installed with apt-get when /usr/bin/prometheus or /usr/bin/promtool is missing.
// The package also ships a system service listening on :9090. The tests never use it (each starts its own
// Prometheus on a free port with a data dir of its own), so after an install the service is stopped and
// disabled: a daemon nobody asked for must not hold :9090 or scrape anything.
// Idempotent: when both binaries are there it only checks that they start. `PROMETHEUS_PATH` and
// `PROMTOOL_PATH` point at other binaries (macOS, another distribution) and skip the install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { aptInstall, isExecutable } from './apt-package.mjs';

export const DEFAULT_PROMETHEUS = '/usr/bin/prometheus';
export const DEFAULT_PROMTOOL = '/usr/bin/promtool';

/** The prometheus and promtool executables the tests use, installing Debian's package first when missing. */
export function ensurePrometheus({ log = console.log } = {}) {
  const prometheus = process.env.PROMETHEUS_PATH || DEFAULT_PROMETHEUS;
  const promtool = process.env.PROMTOOL_PATH || DEFAULT_PROMTOOL;
  if (!isExecutable(prometheus) || !isExecutable(promtool)) {
    if (process.env.PROMETHEUS_PATH || process.env.PROMTOOL_PATH) {
      throw new Error(`PROMETHEUS_PATH=${prometheus} or PROMTOOL_PATH=${promtool} is not an executable file`);
    }
    // Without recommends (aptInstall's default): prometheus-node-exporter would be one more daemon (on :9100).
    aptInstall('prometheus', { log, tag: '[prometheus-tests]', missing: 'Prometheus is missing and installing it needs root: run `apt-get install -y prometheus` (or set PROMETHEUS_PATH and PROMTOOL_PATH)' });
    stopPackagedService(log);
    for (const path of [prometheus, promtool]) {
      if (!isExecutable(path)) throw new Error(`apt-get reported success but ${path} is still missing`);
    }
  }
  const version = spawnSync(prometheus, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0) throw new Error(`${prometheus} --version failed: ${(version.stderr || version.error?.message || '').trim()}`);
  // Prometheus prints its version on stdout or stderr depending on the release.
  const first = `${version.stdout}\n${version.stderr}`.trim().split('\n')[0];
  return { prometheus, promtool, version: first };
}

/** Stops and disables the service the package may have started (systemd, or sysvinit where there is none). */
function stopPackagedService(log) {
  const asRoot = process.getuid?.() === 0;
  const run = (cmd, args) => spawnSync(asRoot ? cmd : 'sudo', asRoot ? args : ['-n', cmd, ...args], { stdio: 'ignore' });
  if (existsSync('/run/systemd/system')) {
    run('systemctl', ['disable', '--now', 'prometheus.service']);
  } else if (existsSync('/etc/init.d/prometheus')) {
    run('/etc/init.d/prometheus', ['stop']);
    run('update-rc.d', ['prometheus', 'disable']);
  }
  log('[prometheus-tests] the packaged prometheus service is stopped and disabled (tests run their own)');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { prometheus, promtool, version } = ensurePrometheus();
    console.log(`[prometheus-tests] ${version} at ${prometheus} (promtool ${promtool})`);
  } catch (err) {
    console.error(`[prometheus-tests] ${err.message}`);
    process.exit(1);
  }
}
