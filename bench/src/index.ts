/**
 * `npm run bench -- <name> [...]`: runs one benchmark (or all with no name). Each benchmark prints its
 * figures and, where it has one, a baseline measured side by side in the same run.
 */
const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  screener: () => import('./screener.bench.js'),
  rates: () => import('./rates.bench.js'),
  statistics: () => import('./statistics.bench.js'),
};

const [name, ...args] = process.argv.slice(2);
const selected = name ? [name] : Object.keys(benches);
for (const n of selected) {
  const load = benches[n];
  if (!load) {
    console.error(`unknown benchmark "${n}"; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  let mod: { run(args: string[]): Promise<void> };
  try {
    mod = await load();
  } catch (err) {
    console.error(`benchmark "${n}" is not available: ${(err as Error).message}`);
    process.exitCode = 1;
    continue;
  }
  console.log(`\n=== bench: ${n} ===`);
  await mod.run(args);
}
