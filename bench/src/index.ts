/**
 * `npm run bench -- <name> [...]`: runs one benchmark (or all with no name). Each benchmark is
 * `src/<name>.bench.ts` exporting `run(args)`; it prints its figures and, where it has one, a baseline
 * measured side by side in the same run.
 */
const KNOWN = ['screener', 'rates', 'relay', 'statistics', 'holdings', 'history', 'decimal', 'billing', 'chat', 'alerts', 'delivery', 'failover', 'web'];

const [name, ...args] = process.argv.slice(2);
const selected = name ? [name] : KNOWN;
for (const n of selected) {
  if (!KNOWN.includes(n)) {
    console.error(`unknown benchmark "${n}"; known: ${KNOWN.join(', ')}`);
    process.exit(2);
  }
  const mod = (await import(`./${n}.bench.js`)) as { run(args: string[]): Promise<void> };
  console.log(`\n=== bench: ${n} ===`);
  await mod.run(args);
}
