/**
 * Older code for a benchmark's same-run baseline, built from a git ref instead of frozen copies kept in the
 * tree: the ref is checked out as a detached worktree under `.runtime/bench-baseline/<sha>/` (git-ignored,
 * reused by later runs), given a node_modules made of links into this tree's installed packages (no
 * download), and compiled with its own `scripts/build.mjs --backend-only`. A bench then imports the ref's
 * compiled modules beside the current ones in one process.
 *
 * Node resolves a package through its links to the real path, so in the worktree's node_modules `@invest/*`
 * point at the worktree's own workspace folders (its code imports its own platform and contracts), and every
 * other entry points at this tree's copy (one pg, one Nest, one zod for both). The ref therefore runs on this
 * tree's third-party versions: where its lock file asks for others, `prepareBaseline` lists them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './processes.js';

export interface BaselineBuild {
  ref: string;
  sha: string;
  /** The worktree's root. */
  root: string;
  /** Packages whose locked version at the ref differs from the one installed here (the ref runs on ours). */
  lockDifferences: string[];
  /** Imports `<root>/<folder>/dist/<module>.js`, e.g. `importDist('services/screener', 'rates/rate-writer')`. */
  importDist<T>(folder: string, module: string): Promise<T>;
}

/** `--baseline <ref>` from a bench's arguments (or `fallback`), and the arguments without it. */
export function baselineRefArg(args: string[], fallback: string): { ref: string; rest: string[] } {
  const i = args.indexOf('--baseline');
  if (i < 0) return { ref: fallback, rest: args };
  const ref = args[i + 1];
  if (!ref || ref.startsWith('--')) throw new Error('--baseline needs a git ref (a commit, tag or branch)');
  return { ref, rest: [...args.slice(0, i), ...args.slice(i + 2)] };
}

const git = (args: string[], cwd = repoRoot) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Checks out, links and compiles `ref` (each step skipped when already done); throws if a step fails. */
export function prepareBaseline(ref: string): BaselineBuild {
  let sha: string;
  try {
    sha = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  } catch {
    throw new Error(`baseline: "${ref}" is not a commit of this repository`);
  }
  const root = join(repoRoot, '.runtime', 'bench-baseline', sha);
  if (!isWorktreeAt(root, sha)) {
    rmSync(root, { recursive: true, force: true });
    git(['worktree', 'prune']);
    mkdirSync(join(repoRoot, '.runtime', 'bench-baseline'), { recursive: true });
    git(['worktree', 'add', '--detach', '--quiet', root, sha]);
  }
  linkNodeModules(root);
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--backend-only', '--quiet'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`baseline: the build of ${sha.slice(0, 7)} failed (exit ${build.status})`);
  return {
    ref,
    sha,
    root,
    lockDifferences: lockDifferences(root),
    importDist: <T>(folder: string, module: string) => import(pathToFileURL(join(root, folder, 'dist', `${module}.js`)).href) as Promise<T>,
  };
}

function isWorktreeAt(root: string, sha: string): boolean {
  if (!existsSync(join(root, '.git'))) return false;
  try {
    return git(['rev-parse', 'HEAD'], root) === sha;
  } catch {
    return false;
  }
}

/** The workspace folders of a tree (`services/*` expanded), by package name. */
function workspaces(root: string): Map<string, string> {
  const { workspaces: patterns } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  const folders = patterns.flatMap((w) =>
    w.endsWith('/*') && existsSync(join(root, w.slice(0, -2)))
      ? readdirSync(join(root, w.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => `${w.slice(0, -2)}/${d.name}`)
      : [w],
  );
  const byName = new Map<string, string>();
  for (const folder of folders) {
    const pkg = join(root, folder, 'package.json');
    if (existsSync(pkg)) byName.set((JSON.parse(readFileSync(pkg, 'utf8')) as { name: string }).name, folder);
  }
  return byName;
}

/**
 * Made anew each time (a few hundred links): it then follows whatever this tree has installed since. The
 * worktree's own workspace packages are linked as npm would; a workspace folder with a node_modules of its
 * own here (a version that differs from the root's) gets a link to it.
 */
function linkNodeModules(root: string): void {
  const target = join(root, 'node_modules');
  rmSync(target, { recursive: true, force: true });
  mkdirSync(join(target, '@invest'), { recursive: true });
  const installed = join(repoRoot, 'node_modules');
  for (const entry of readdirSync(installed)) {
    if (entry === '@invest' || (entry.startsWith('.') && entry !== '.bin')) continue;
    symlinkSync(join(installed, entry), join(target, entry));
  }
  for (const [name, folder] of workspaces(root)) {
    if (!name.startsWith('@invest/')) continue;
    const link = join(target, name);
    symlinkSync(join(root, folder), link);
    // What Node resolves `@invest/...` to from the worktree's code: its own folder, never this tree's.
    if (!realpathSync(link).startsWith(realpathSync(root))) throw new Error(`baseline: ${link} does not resolve inside the worktree`);
  }
  for (const folder of workspaces(repoRoot).values()) {
    const own = join(repoRoot, folder, 'node_modules');
    if (existsSync(own) && existsSync(join(root, folder))) {
      rmSync(join(root, folder, 'node_modules'), { recursive: true, force: true });
      symlinkSync(own, join(root, folder, 'node_modules'));
    }
  }
}

interface LockEntry {
  version?: string;
  optional?: boolean;
  link?: boolean;
}

/**
 * Third-party packages the ref's lock file pins at another version than this tree installed (npm's record
 * of what it installed, node_modules/.package-lock.json), or that are not installed here at all. Optional
 * packages missing here (other platforms' binaries) do not count.
 */
function lockDifferences(root: string): string[] {
  const read = (file: string) => (existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, LockEntry> }).packages ?? {}) : {});
  const theirs = read(join(root, 'package-lock.json'));
  const ours = read(join(repoRoot, 'node_modules', '.package-lock.json'));
  const differences: string[] = [];
  for (const [path, entry] of Object.entries(theirs)) {
    if (!path.includes('node_modules/') || entry.link || !entry.version) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const have = ours[path]?.version;
    if (have === entry.version) continue;
    if (!have && entry.optional) continue;
    differences.push(`${name} ${entry.version} (here ${have ?? 'not installed'}${path.startsWith('node_modules/') ? '' : `, at ${path}`})`);
  }
  return differences;
}
