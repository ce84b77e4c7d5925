import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The builds a test run shares, each made once per run whichever projects need it: the
 * packages' `dist/` (the pack test packs it, the Next.js example imports it) and the
 * Next.js example's `next build`. A project's global setup starts what it needs
 * (`startBuild`) and returns at once: the builds go on in the background, beside the
 * suites, and a test waits for the one it needs (`awaitBuild`). Both projects reading one
 * `dist/` also means no build deletes it while another is reading it.
 *
 * Global setups run in vitest's main process, one module instance per project, so the
 * run's builds are kept on `globalThis`; tests run in workers, so each build's outcome is
 * a file (`<dir>/<name>.json`) they poll.
 */

export type BuildName = 'packages' | 'nextjs';

const ROOT = resolve(import.meta.dirname, '..');
export const EXAMPLE_DIR = join(ROOT, 'examples', 'nextjs');

interface BuildSpec {
  /** Builds that must have succeeded first. */
  after: BuildName[];
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  /**
   * The build's CPU priority (19 lowest). `next build` is CPU-bound for a minute or more on
   * 2 cores: below the suites it runs beside, it takes what they leave idle (the browser
   * files mostly wait on paced answers) instead of slowing their timing.
   */
  nice: number;
  timeoutMs: number;
}

const BUILDS: Record<BuildName, BuildSpec> = {
  packages: {
    after: [],
    command: 'pnpm',
    args: ['-r', '--filter', './packages/*', 'build'],
    cwd: ROOT,
    nice: 0,
    timeoutMs: 5 * 60_000,
  },
  nextjs: {
    after: ['packages'],
    command: process.execPath,
    args: [join(EXAMPLE_DIR, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'],
    cwd: EXAMPLE_DIR,
    env: { NEXT_TELEMETRY_DISABLED: '1' },
    nice: 10,
    timeoutMs: 8 * 60_000,
  },
};

/** What a finished build wrote for the tests. */
export interface BuildOutcome {
  ok: boolean;
  /** Wall-clock time of the build itself, without waiting for the ones before it. */
  ms: number;
  /** The build's output: its first and last 10,000 characters (the first error, the summary). */
  log: string;
}

interface RunBuilds {
  dir: string;
  started: Map<BuildName, Promise<boolean>>;
  running: Set<ChildProcess>;
  users: number;
}

const KEY = Symbol.for('resumable.test.shared-builds');
/** Characters kept of the start and of the end of a build's output. */
const LOG_PART = 10_000;

function runBuilds(): RunBuilds {
  const global = globalThis as { [KEY]?: RunBuilds };
  if (!global[KEY]) {
    const builds: RunBuilds = {
      dir: mkdtempSync(join(tmpdir(), 'resumable-builds-')),
      started: new Map(),
      running: new Set(),
      users: 0,
    };
    // Detached builds would outlive a run that ends without its teardowns.
    process.once('exit', () => {
      for (const child of builds.running) stop(child);
    });
    global[KEY] = builds;
  }
  return global[KEY];
}

/**
 * For a global setup: starts `names` (and the builds they come after) unless this run
 * started them already, and returns at once. The directory the outcomes go to is for
 * `awaitBuild` (provide it to the tests); the teardown stops builds still running when the
 * last project that asked for builds is done.
 */
export function startBuilds(names: BuildName[]): { dir: string; teardown: () => void } {
  const builds = runBuilds();
  builds.users++;
  for (const name of names) start(builds, name);
  let tornDown = false;
  return {
    dir: builds.dir,
    teardown() {
      if (tornDown) return;
      tornDown = true;
      if (--builds.users > 0) return;
      for (const child of builds.running) stop(child);
      rmSync(builds.dir, { recursive: true, force: true });
    },
  };
}

function start(builds: RunBuilds, name: BuildName): Promise<boolean> {
  const existing = builds.started.get(name);
  if (existing) return existing;
  const spec = BUILDS[name];
  const build = Promise.all(spec.after.map((before) => start(builds, before))).then((oks) => {
    if (oks.every(Boolean)) return spawnBuild(builds, name, spec);
    const failed = spec.after.filter((_, i) => !oks[i]).join(', ');
    return finish(builds, name, { ok: false, ms: 0, log: `not built: ${failed} failed` });
  });
  builds.started.set(name, build);
  return build;
}

function spawnBuild(builds: RunBuilds, name: BuildName, spec: BuildSpec): Promise<boolean> {
  const began = Date.now();
  return new Promise((done) => {
    // Its own process group, so `stop` ends the build's own children too (tsdown, the
    // Next.js workers), by the group's id.
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      // Plain text: the output is shown as it is when a build fails.
      env: { ...process.env, FORCE_COLOR: '0', ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    builds.running.add(child);
    if (spec.nice > 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, spec.nice);
      } catch {
        // Not allowed here: it runs at normal priority.
      }
    }
    let head = '';
    let tail = '';
    let total = 0;
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      total += text.length;
      const room = LOG_PART - head.length;
      head += text.slice(0, room);
      if (text.length > room) tail = (tail + text.slice(room)).slice(-LOG_PART);
    };
    const log = () => (total > 2 * LOG_PART ? `${head}\n[…]\n${tail}` : head + tail);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      keep(
        Buffer.from(
          `\n[shared-builds] ${name} still running after ${spec.timeoutMs} ms: stopped\n`,
        ),
      );
      stop(child);
    }, spec.timeoutMs);
    const end = (ok: boolean) => {
      clearTimeout(timer);
      builds.running.delete(child);
      done(finish(builds, name, { ok, ms: Date.now() - began, log: log() }));
    };
    child.on('error', (error) => {
      keep(Buffer.from(`\n${spec.command}: ${error.message}\n`));
      end(false);
    });
    child.on('close', (code) => end(code === 0));
  });
}

function finish(builds: RunBuilds, name: BuildName, outcome: BuildOutcome): boolean {
  // The teardown may have removed the directory already (the run is over). Renamed into
  // place, so a test polling for the file never reads half of it.
  if (existsSync(builds.dir)) {
    const file = join(builds.dir, `${name}.json`);
    writeFileSync(`${file}.part`, JSON.stringify(outcome));
    renameSync(`${file}.part`, file);
  }
  return outcome.ok;
}

function stop(child: ChildProcess) {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // The group has ended already.
  }
}

/**
 * For a test: waits until the build `name` of this run has finished and returns its
 * outcome; throws with the build's output if it failed, or past `timeoutMs`.
 * @param dir what the global setup's `startBuilds` returned (provided to the tests)
 */
export async function awaitBuild(
  dir: string,
  name: BuildName,
  timeoutMs: number,
): Promise<BuildOutcome> {
  const file = join(dir, `${name}.json`);
  const until = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`the ${name} build did not end within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const outcome = JSON.parse(readFileSync(file, 'utf8')) as BuildOutcome;
  if (!outcome.ok) throw new Error(`the ${name} build failed:\n${outcome.log}`);
  return outcome;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's shared builds write their outcomes (`awaitBuild`). */
    sharedBuilds: string;
  }
}
