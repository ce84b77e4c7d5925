/**
 * `pnpm bench size`: what each client costs in a page, built the way an app ships it —
 * esbuild, minified, ES modules with code splitting, React external — and compressed with
 * gzip -9. "First paint" is the entry chunk and every chunk it imports statically; chunks
 * behind a dynamic `import()` (our highlighter and its grammars) are counted apart.
 *
 * Rows: `@resumable/hooks` with all its dependencies; `@resumable/ui` whole (hooks included);
 * the UI beyond the hooks and the Markdown libraries; the Markdown renderer alone (parser,
 * healer, and the highlighter's lazy chunks); beside `useChat` from `@ai-sdk/react` and
 * `@assistant-ui/react`. Goals (issue #16): hooks ≤ 10 KB gz, UI ≤ 15 KB gz beyond hooks and
 * Markdown, Markdown + highlighter on first paint ≤ 40 KB gz.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { writeResults } from './lib/results.js';

const here = dirname(fileURLToPath(import.meta.url));
const REACT = [
  'react',
  'react-dom',
  'react/jsx-runtime',
  'react/jsx-dev-runtime',
  'react-dom/client',
];
/** What "the Markdown" is: the parser, its GFM extensions, the healer, the highlighter. */
const MARKDOWN_LIBS = [
  'mdast-util-from-markdown',
  'mdast-util-gfm',
  'micromark-extension-gfm',
  'remend',
  'lowlight',
  'highlight.js',
  'highlight.js/*',
];

interface Row {
  name: string;
  what: string;
  /** Entry chunk plus its static imports. */
  firstPaint: { minBytes: number; gzipBytes: number };
  /** Chunks loaded later by `import()`, all of them, and each on its own. */
  lazy: { minBytes: number; gzipBytes: number; chunks: number };
  lazyChunks: { file: string; gzipBytes: number }[];
  goalGzipBytes?: number;
}

async function measure(
  name: string,
  what: string,
  source: string,
  external: string[] = [],
  goalKb?: number,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'resumable-size-'));
  try {
    const entry = join(here, `.size-entry-${process.pid}.ts`);
    writeFileSync(entry, source);
    const out = join(dir, 'out');
    mkdirSync(out);
    let result: Awaited<ReturnType<typeof build>> & { metafile: Metafile };
    try {
      result = await build({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        format: 'esm',
        splitting: true,
        outdir: out,
        write: false,
        metafile: true,
        platform: 'browser',
        target: 'es2022',
        jsx: 'automatic',
        conditions: ['@resumable/source'],
        define: { 'process.env.NODE_ENV': '"production"' },
        external: [...REACT, ...external],
        logLevel: 'error',
      });
    } finally {
      rmSync(entry, { force: true });
    }
    const bytes = new Map((result.outputFiles ?? []).map((f) => [f.path, f.contents]));
    const outputs = result.metafile.outputs;
    const abs = (key: string) => resolve(process.cwd(), key);
    const main = Object.keys(outputs).find((k) =>
      outputs[k]!.entryPoint?.endsWith(entry.split('/').pop()!),
    )!;
    const first = new Set<string>();
    const stack = [main];
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (first.has(key)) continue;
      first.add(key);
      for (const i of outputs[key]!.imports) {
        if (i.kind === 'import-statement' && outputs[i.path]) stack.push(i.path);
      }
    }
    const js = Object.keys(outputs).filter((k) => k.endsWith('.js'));
    const lazy = js.filter((k) => !first.has(k));
    const sum = (keys: string[]) => {
      if (keys.length === 0) return { minBytes: 0, gzipBytes: 0 };
      const all = Buffer.concat(keys.map((k) => Buffer.from(bytes.get(abs(k))!)));
      return { minBytes: all.length, gzipBytes: gzipSync(all, { level: 9 }).length };
    };
    // Hash-free names: `highlight`, `typescript`… (`chunk` is code they share).
    const chunkName = (k: string) => (k.split('/').pop() ?? k).replace(/-[A-Z0-9]+\.js$/, '');
    return {
      name,
      what,
      firstPaint: sum([...first]),
      lazy: { ...sum(lazy), chunks: lazy.length },
      lazyChunks: lazy
        .map((k) => ({ file: chunkName(k), gzipBytes: sum([k]).gzipBytes }))
        .sort((a, b) => b.gzipBytes - a.gzipBytes),
      ...(goalKb === undefined ? {} : { goalGzipBytes: goalKb * 1024 }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The exact versions pinned in bench/package.json (some packages do not export theirs). */
const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const version = (pkg: string) => pinned.devDependencies[pkg] ?? '?';

const rows: Row[] = [
  await measure(
    '@resumable/hooks',
    'useResumableChat and everything else it exports, with its dependencies',
    "export * from '@resumable/hooks';",
    [],
    10,
  ),
  await measure(
    '@resumable/ui',
    '<ResumableChat> and every part, hooks and Markdown included',
    "export * from '@resumable/ui';",
  ),
  await measure(
    '@resumable/ui beyond hooks and Markdown',
    'the UI with @resumable/hooks, @resumable/protocol and the Markdown libraries external',
    "export * from '@resumable/ui';",
    ['@resumable/hooks', '@resumable/hooks/*', '@resumable/protocol', ...MARKDOWN_LIBS],
    15,
  ),
  await measure(
    'Markdown + highlighter',
    '<Markdown>: parser with GFM, healer, renderer; the highlighter loads lazily per language',
    "export { Markdown } from '@resumable/ui';",
    ['@resumable/hooks', '@resumable/hooks/*', '@resumable/protocol'],
    40,
  ),
  await measure(
    `@ai-sdk/react ${version('@ai-sdk/react')} useChat`,
    'useChat with its dependencies (ai, zod…)',
    "export { useChat } from '@ai-sdk/react';",
  ),
  await measure(
    `@assistant-ui/react ${version('@assistant-ui/react')}`,
    'Thread, Composer and the runtime hooks a chat uses, with their dependencies',
    "export { ThreadPrimitive, ComposerPrimitive, MessagePrimitive, AssistantRuntimeProvider, useLocalRuntime } from '@assistant-ui/react';",
  ),
];

const kb = (n: number) => (n / 1024).toFixed(1);
console.log('\nsize (esbuild, minified, gzip -9, React external)\n');
console.log(
  `${'bundle'.padEnd(44)} ${'first paint gz'.padStart(14)} ${'min'.padStart(8)} ${'lazy gz'.padStart(9)} ${'goal'.padStart(8)}`,
);
for (const r of rows) {
  const goal = r.goalGzipBytes
    ? `${r.firstPaint.gzipBytes <= r.goalGzipBytes ? '✓' : '✗'} ≤${kb(r.goalGzipBytes)}`
    : '';
  console.log(
    `${r.name.padEnd(44)} ${`${kb(r.firstPaint.gzipBytes)} KB`.padStart(14)} ${`${kb(r.firstPaint.minBytes)} KB`.padStart(8)} ${(r.lazy.chunks ? `${kb(r.lazy.gzipBytes)} KB` : '—').padStart(9)} ${goal.padStart(8)}`,
  );
}

writeResults('size', {
  bench: 'size',
  date: new Date().toISOString(),
  node: process.version,
  method:
    'esbuild ' +
    version('esbuild') +
    ': bundle, minify, ESM with code splitting, target es2022, NODE_ENV=production, React external; gzip -9 of the concatenated chunks. firstPaint = the entry chunk and the chunks it imports statically; lazy = every chunk behind import().',
  rows,
});
