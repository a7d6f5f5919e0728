#!/usr/bin/env node
// `npm run cmd -- <name> [options]`: runs one scheduled job by hand, e.g. `update:shares-market-stats`.
// Each service that owns jobs exposes them from dist/jobs/cli.js as { commands: { name: run(args) } }.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const [name, ...args] = process.argv.slice(2);
const owners = [];
for (const service of readdirSync(join(root, 'services'))) {
  const cli = join(root, 'services', service, 'dist', 'jobs', 'cli.js');
  if (!existsSync(cli)) continue;
  const mod = await import(cli);
  for (const command of Object.keys(mod.commands)) owners.push({ service, command, run: mod.commands[command] });
}
const found = owners.find((o) => o.command === name);
if (!found) {
  console.error(name ? `unknown command "${name}"` : 'usage: npm run cmd -- <command> [options]');
  console.error(`commands: ${owners.map((o) => `${o.command} (${o.service})`).join(', ') || 'none yet'}`);
  process.exit(2);
}
const code = await found.run(args);
process.exit(typeof code === 'number' ? code : 0);
