#!/usr/bin/env node
// The demo providers of `npm start`, in one process: every service that stands in for an outside provider
// exports `demoProviders` from dist/testing/demo-providers.js (see platform/src/demo/demo-providers.ts).
// Each one with a variable unset in this environment is started; the values of those variables go to the
// parent (start.mjs) over IPC, or to stdout when run by hand. A variable that is set is never overridden.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

const running = [];
const env = {};
const started = [];
try {
  for (const service of readdirSync(join(root, 'services')).sort()) {
    const file = join(root, 'services', service, 'dist', 'testing', 'demo-providers.js');
    if (!existsSync(file)) continue;
    const { demoProviders } = await import(file);
    const unset = demoProviders.variables.filter((v) => !process.env[v]);
    if (unset.length === 0) continue;
    const provider = await demoProviders.start();
    running.push(provider);
    for (const v of unset) if (provider.env[v] !== undefined) env[v] = provider.env[v];
    started.push({ service, description: demoProviders.description, variables: unset, hint: provider.hint });
  }
} catch (err) {
  console.error(`[demo] could not start the demo providers: ${err?.stack ?? err}`);
  process.exit(1);
}

if (process.send) {
  process.send({ type: 'ready', env, started });
} else {
  for (const s of started) console.log(`[demo] ${s.service}: ${s.description}`);
  for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void Promise.allSettled(running.map((p) => p.close())).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
if (process.send) {
  // Under start.mjs, which stops us after the services that call us: a Ctrl-C reaches the whole process
  // group, and answering it here would pull the providers from under jobs still running.
  process.on('SIGINT', () => {});
  // Whoever started us is gone (start.mjs killed outright): nobody needs the providers any more.
  process.on('disconnect', stop);
} else {
  process.on('SIGINT', stop);
}
