/**
 * The fold of an earlier commit, for `pnpm bench fold` to time beside today's (in processes
 * of their own, lib/fold-versus.ts). Its sources come from the project's own history (`git
 * show`), written to a temp folder for this run and removed at exit; nothing generated is
 * committed. Its dependencies are the packages already installed at the exact versions its
 * package.json pins (found in pnpm's store under node_modules/.pnpm), linked into that
 * folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { applyEnvelopes, foldLog } from '@resumable/protocol';

/** What the bench calls on either fold (both commits export these two). */
export interface FoldModule {
  applyEnvelopes: typeof applyEnvelopes;
  foldLog: typeof foldLog;
}

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const git = (...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

/** The installed copy of `name` at exactly `version` (pnpm: `.pnpm/<name>@<version>[_peers]`). */
function installed(name: string, version: string): string {
  const store = join(repo, 'node_modules', '.pnpm');
  const prefix = `${name.replace('/', '+')}@${version}`;
  const entry = readdirSync(store).find((e) => e === prefix || e.startsWith(`${prefix}_`));
  if (entry === undefined) {
    throw new Error(`the baseline fold needs ${name}@${version}, which is not installed`);
  }
  return join(store, entry, 'node_modules', name);
}

/**
 * `@resumable/protocol` as it was at `commit`: its `src` (tests left out) and package.json
 * written to a temp folder (removed when this process exits), its dependencies linked.
 * Returns the path of its `src/index.ts`, for a process run with tsx to import.
 */
export function foldSourcesAt(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), `resumable-fold-${commit}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const pkg = 'packages/protocol';
  const files = git(
    'ls-tree',
    '-r',
    '--name-only',
    commit,
    '--',
    `${pkg}/src`,
    `${pkg}/package.json`,
  )
    .split('\n')
    .filter((path) => path !== '' && !path.endsWith('.test.ts'));
  for (const path of files) {
    mkdirSync(join(dir, dirname(path)), { recursive: true });
    writeFileSync(join(dir, path), git('show', `${commit}:${path}`));
  }
  const manifest = JSON.parse(git('show', `${commit}:${pkg}/package.json`)) as {
    dependencies?: Record<string, string>;
  };
  for (const [name, version] of Object.entries(manifest.dependencies ?? {})) {
    const link = join(dir, pkg, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(installed(name, version), link, 'dir');
  }
  return join(dir, pkg, 'src', 'index.ts');
}
