import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { awaitBuild } from '../shared-builds.js';
import { apiEntries, apiReports } from './api-reports.js';

/**
 * Ready to publish: every package under packages/ is built (the run's one build of them,
 * `shared-builds.ts`, started by this project's global setup), packed with `pnpm pack` (which
 * turns `workspace:*` into versions, as `pnpm publish` does), and installed from its
 * tarball into a fresh project beside the peers a user brings; that project then
 * type-checks (our declarations included) an import of every public entry and imports
 * each one in Node. The entries come from each package's `exports`, so a new one is
 * covered the day it is added. The same build is checked against the committed API reports
 * (`pnpm api` writes them), and each tarball by publint and Are the Types Wrong.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** An `exports` entry's conditions; a condition may hold conditions of its own (`production`). */
interface ExportConditions {
  [condition: string]: string | ExportConditions;
}

interface Manifest {
  name: string;
  version: string;
  license?: string;
  private?: boolean;
  exports: Record<string, string | ExportConditions>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const dirs = readdirSync(join(ROOT, 'packages')).map((name) => join(ROOT, 'packages', name));
const manifests = dirs.map((dir) => ({
  dir,
  manifest: readJson<Manifest>(join(dir, 'package.json')),
}));

/** The exact version the workspace pins for a package (the peers a user brings). */
function pinned(name: string): string {
  const all = [
    readJson<Manifest>(join(ROOT, 'package.json')),
    readJson<Manifest>(join(ROOT, 'test', 'package.json')),
    ...manifests.map((m) => m.manifest),
  ];
  for (const m of all) {
    const version = m.devDependencies?.[name] ?? m.dependencies?.[name];
    if (version && /^\d+\.\d+\.\d+$/.test(version)) return version;
  }
  throw new Error(`the workspace pins no exact version of ${name}`);
}

const sh = (file: string, args: string[], cwd: string, timeout = 120_000) =>
  run(file, args, { cwd, timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, CI: '1' } });

describe('packing: every package installs from its tarball and type-checks', () => {
  const work = mkdtempSync(join(tmpdir(), 'resumable-pack-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const tarballs = new Map<string, string>();

  it('builds and packs each package with its LICENSE, every export target and no workspace: range', {
    timeout: 180_000,
  }, async () => {
    await awaitBuild(inject('sharedBuilds'), 'packages', 170_000);
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(readJson<{ license: string }>(join(ROOT, 'package.json')).license).toBe('MIT');
    // Each package packs and is inspected on its own: side by side, not one after another.
    await Promise.all(
      manifests.map(async ({ dir, manifest }) => {
        expect(manifest.private, `${manifest.name} is private`).toBeUndefined();
        expect(manifest.license).toBe('MIT');
        const { stdout } = await sh('pnpm', ['pack', '--pack-destination', work], dir);
        const tarball = stdout.trim().split('\n').at(-1)!;
        expect(tarball).toBe(
          join(work, `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`),
        );
        tarballs.set(manifest.name, tarball);

        const files = new Set((await sh('tar', ['-tzf', tarball], work)).stdout.trim().split('\n'));
        expect((await sh('tar', ['-xzOf', tarball, 'package/LICENSE'], work)).stdout).toBe(license);
        for (const target of exportTargets(manifest)) {
          expect(
            files.has(`package/${target.replace(/^\.\//, '')}`),
            `${manifest.name}: ${target}`,
          ).toBe(true);
        }
        const packed = JSON.parse(
          (await sh('tar', ['-xzOf', tarball, 'package/package.json'], work)).stdout,
        ) as Manifest;
        const ranges = Object.values({ ...packed.dependencies, ...packed.peerDependencies });
        expect(ranges.filter((range) => range.startsWith('workspace:'))).toEqual([]);
      }),
    );
  });

  it('the committed API report of every public entry matches the built declarations (pnpm api updates them)', {
    timeout: 120_000,
  }, () => {
    expect(tarballs.size).toBe(manifests.length);
    const results = apiReports(apiEntries(dirs), false);
    expect(results.map((result) => result.entry)).toContain('@resumable/server/testing');
    const changed = results.filter((result) => result.changed);
    expect(
      changed.map((result) => result.file),
      `API reports differ from the build: run pnpm api and commit the reports (${changed
        .flatMap((result) => result.messages)
        .join('; ')})`,
    ).toEqual([]);
  });

  it('publint finds nothing in any tarball, not even a suggestion', {
    timeout: 60_000,
  }, async () => {
    const found = await Promise.all(
      [...tarballs].map(async ([name, file]) => {
        const bytes = readFileSync(file);
        const tarball = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        const { messages, pkg } = await publint({ level: 'suggestion', pack: { tarball } });
        return messages.map(
          (message) => `${name}: ${message.type}: ${formatMessage(message, pkg)}`,
        );
      }),
    );
    expect(found.flat()).toEqual([]);
  });

  it('Are the Types Wrong finds every entry typed for ESM consumers (node16, bundlers)', {
    timeout: 60_000,
  }, async () => {
    const attw = join(ROOT, 'test/node_modules/.bin/attw');
    const failures = await Promise.all(
      [...tarballs].map(async ([name, file]) => {
        // ESM only (no require entry): node10 and require() from CJS are out of scope. A CSS
        // entry has no types to find.
        const { exports } = manifests.find((m) => m.manifest.name === name)!.manifest;
        const styles = Object.keys(exports).filter((key) => key.endsWith('.css'));
        const args = [file, '--profile', 'esm-only', '--format', 'ascii'];
        if (styles.length > 0) args.push('--exclude-entrypoints', ...styles);
        return sh(attw, args, work).then(
          () => null,
          (error: { stdout?: string }) => `${name}:\n${error.stdout ?? String(error)}`,
        );
      }),
    );
    expect(failures.filter((failure) => failure !== null)).toEqual([]);
  });

  it('a fresh project installs the tarballs and type-checks and imports every public entry', {
    timeout: 120_000,
  }, async () => {
    expect(tarballs.size).toBe(manifests.length);
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    const ours = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
    // The peers a user brings, at the versions the workspace tests with.
    const peers = new Set(manifests.flatMap((m) => Object.keys(m.manifest.peerDependencies ?? {})));
    if (peers.has('ai')) peers.add('zod');
    // Types a strict project needs: the AI SDK's declarations import `json-schema`'s.
    for (const name of ['@types/react', '@types/react-dom', '@types/node', 'typescript']) {
      peers.add(name);
    }
    if (peers.has('ai')) peers.add('@types/json-schema');
    const theirs = Object.fromEntries([...peers].map((name) => [name, pinned(name)]));
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({
        name: 'consumer',
        private: true,
        type: 'module',
        dependencies: { ...ours, ...theirs },
      }),
    );
    // Our packages depend on each other by version: point those at the tarballs too.
    writeFileSync(
      join(consumer, 'pnpm-workspace.yaml'),
      [
        'overrides:',
        ...[...tarballs].map(([name, file]) => `  "${name}": "file:${file}"`),
        'allowBuilds:',
        '  esbuild: true',
        '',
      ].join('\n'),
    );
    // The store the workspace installed from has everything; the registry only fills gaps.
    await sh('pnpm', ['install', '--prefer-offline'], consumer);

    const entries = manifests.flatMap(({ manifest }) =>
      Object.keys(manifest.exports)
        .filter((key) => typeof manifest.exports[key] === 'object')
        .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`)),
    );
    expect(entries).toContain('@resumable/server/ai-sdk');
    expect(entries).toContain('@resumable/hooks/ai-sdk');
    expect(entries).toContain('@resumable/devtools');
    expect(entries).toContain('@resumable/devtools/production');
    writeFileSync(
      join(consumer, 'consumer.ts'),
      [
        ...entries.map((entry, i) => `import * as e${i} from '${entry}';`),
        `export const entries = [${entries.map((_, i) => `e${i}`).join(', ')}];`,
        // A few signatures a user relies on, checked against the packed declarations.
        "import { createResumableHandler } from '@resumable/server';",
        "import { aiSdkAgent } from '@resumable/server/ai-sdk';",
        "import { streamText } from 'ai';",
        'declare const model: Parameters<typeof streamText>[0]["model"];',
        'export const handler: (request: Request) => Promise<Response> = createResumableHandler({',
        '  agent: aiSdkAgent(({ messages, signal }) => streamText({ model, messages, abortSignal: signal })),',
        '});',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          jsx: 'react-jsx',
          strict: true,
          noEmit: true,
          // Our published .d.ts files are checked too, not only their use.
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = await sh(
      join(consumer, 'node_modules/.bin/tsc'),
      ['-p', 'tsconfig.json'],
      consumer,
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(tsc.stdout).toBe('');

    writeFileSync(
      join(consumer, 'imports.mjs'),
      `for (const entry of ${JSON.stringify(entries)}) {\n` +
        '  const m = await import(entry);\n' +
        '  console.log(entry, Object.keys(m).length > 0);\n}\n',
    );
    const imported = await sh('node', ['imports.mjs'], consumer);
    expect(imported.stdout.trim().split('\n')).toEqual(entries.map((entry) => `${entry} true`));
  });

  it("'use client' begins the built file of every entry that uses React, and of no other", {
    timeout: 60_000,
  }, async () => {
    expect(tarballs.size).toBe(manifests.length);
    const found = new Map<string, { client: boolean; react: boolean }>();
    for (const { manifest } of manifests) {
      const unpacked = join(work, 'unpacked', manifest.name.replace('/', '+'));
      mkdirSync(unpacked, { recursive: true });
      await sh('tar', ['-xzf', tarballs.get(manifest.name)!, '-C', unpacked], work);
      for (const [key, target] of Object.entries(manifest.exports)) {
        if (typeof target === 'string') continue;
        const file = join(unpacked, 'package', target.import as string);
        found.set(key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`, {
          client: USE_CLIENT.test(readFileSync(file, 'utf8')),
          react: importsReact(file),
        });
      }
    }
    // A Server Component (a Next.js page.tsx) can import a client entry and render its
    // components; an entry with hooks but no directive fails its build, and a directive on
    // a framework-free entry would make its functions uncallable on the server.
    const wrong = [...found]
      .filter(([, entry]) => entry.client !== entry.react)
      .map(([name, entry]) => `${name} ${entry.react ? 'uses React without' : 'has'} 'use client'`);
    expect(wrong).toEqual([]);
    for (const name of [
      '@resumable/ui',
      '@resumable/hooks',
      '@resumable/devtools',
      '@resumable/devtools/production',
    ]) {
      expect(found.get(name), name).toEqual({ client: true, react: true });
    }
    // What a production build resolves `@resumable/devtools` to (the `production`
    // condition): the stand-ins, with no directive (a Server Component renders them on the
    // server; nothing goes to the browser) and nothing of the recorder or the panel.
    const devtools = manifests.find(({ manifest }) => manifest.name === '@resumable/devtools')!;
    const production = (devtools.manifest.exports['.'] as ExportConditions).production;
    expect(production).toEqual({ types: './dist/index.d.ts', import: './dist/absent.js' });
    const absent = join(
      work,
      'unpacked',
      '@resumable+devtools',
      'package',
      (production as ExportConditions).import as string,
    );
    expect(USE_CLIENT.test(readFileSync(absent, 'utf8'))).toBe(false);
    // It and the chunk of stand-ins it shares with index.js: no other module.
    const reached = staticImports(absent).map((file) => basename(file));
    expect(reached).toHaveLength(2);
    expect(reached[0]).toBe('absent.js');
    expect(reached[1]).toMatch(/^absent-[\w-]+\.js$/);
    for (const name of [
      '@resumable/hooks/core',
      '@resumable/hooks/observe',
      '@resumable/protocol',
      '@resumable/server',
    ]) {
      expect(found.get(name), name).toEqual({ client: false, react: false });
    }
  });
});

/** The directive as a module's first statement (comments may come before it). */
const USE_CLIENT = /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*(['"])use client\1/;

/**
 * Whether a built module, or a module of its package it imports statically, imports React
 * (`react`, `react-dom`, their subpaths). Static imports only: an `import()` is a lazy
 * chunk, not the entry's. Read from rolldown's output, which writes each import and
 * re-export on one line of its own.
 */
function importsReact(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  const statements =
    /^(?:import|export)\b[^\n]*?\bfrom\s*["']([^"'\n]+)["'];?$|^import\s*["']([^"'\n]+)["'];?$/gm;
  for (const match of source.matchAll(statements)) {
    const specifier = (match[1] ?? match[2])!;
    if (/^react(?:-dom)?(?:\/|$)/.test(specifier)) return true;
    if (specifier.startsWith('.') && importsReact(join(dirname(file), specifier), seen))
      return true;
  }
  return false;
}

/** A built module and every module of its package it imports statically, transitively. */
function staticImports(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const match of source.matchAll(/\bfrom\s*["'](\.[^"'\n]+)["']/g)) {
    staticImports(join(dirname(file), match[1]!), seen);
  }
  return [...seen];
}

/** Every file an `exports` entry points at (import, types, and the source condition). */
function exportTargets(manifest: Manifest): string[] {
  const targets = (target: string | ExportConditions): string[] =>
    typeof target === 'string' ? [target] : Object.values(target).flatMap(targets);
  return Object.values(manifest.exports).flatMap(targets);
}
