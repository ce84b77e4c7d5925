/**
 * One bundle's size as an app ships it — esbuild, minified, ES modules with code splitting,
 * React external — gzip -9 of its first paint (the entry chunk and every chunk it imports
 * statically) and of its lazy chunks. Used by `pnpm bench size` (the figures) and by the
 * size budget test in test/pack (the goals, so a change that breaks one fails CI).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

// Entries are written in bench/, so they resolve the bench's own dependencies.
const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const REACT = [
  'react',
  'react-dom',
  'react/jsx-runtime',
  'react/jsx-dev-runtime',
  'react-dom/client',
];
/** What "the Markdown" is: the parser, its GFM extensions, the healer, the highlighter. */
export const MARKDOWN_LIBS = [
  'mdast-util-from-markdown',
  'mdast-util-gfm',
  'micromark-extension-gfm',
  'remend',
  'lowlight',
  'highlight.js',
  'highlight.js/*',
];

export interface Row {
  name: string;
  what: string;
  /** Entry chunk plus its static imports. */
  firstPaint: { minBytes: number; gzipBytes: number };
  /** Chunks loaded later by `import()`, all of them, and each on its own. */
  lazy: { minBytes: number; gzipBytes: number; chunks: number };
  lazyChunks: { file: string; gzipBytes: number }[];
  goalGzipBytes?: number;
}

let entries = 0;

export async function measure(
  name: string,
  what: string,
  source: string,
  external: string[] = [],
  goalKb?: number,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'resumable-size-'));
  try {
    const entry = join(here, `.size-entry-${process.pid}-${++entries}.ts`);
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

/** The three bundles issue #16 set goals for (KB gz of first paint). */
export const GOAL_BUNDLES: ReadonlyArray<{
  name: string;
  what: string;
  source: string;
  external: string[];
  goalKb: number;
}> = [
  {
    name: '@resumable/hooks',
    what: 'useResumableChat and everything else it exports, with its dependencies',
    source: "export * from '@resumable/hooks';",
    external: [],
    goalKb: 10,
  },
  {
    name: '@resumable/ui beyond hooks and Markdown',
    what: 'the UI with @resumable/hooks, @resumable/protocol and the Markdown libraries external',
    source: "export * from '@resumable/ui';",
    external: ['@resumable/hooks', '@resumable/hooks/*', '@resumable/protocol', ...MARKDOWN_LIBS],
    goalKb: 15,
  },
  {
    name: 'Markdown + highlighter',
    what: '<Markdown>: parser with GFM, healer, renderer; the highlighter loads lazily per language',
    source: "export { Markdown } from '@resumable/ui';",
    external: ['@resumable/hooks', '@resumable/hooks/*', '@resumable/protocol'],
    goalKb: 40,
  },
];

export const measureGoal = (b: (typeof GOAL_BUNDLES)[number]) =>
  measure(b.name, b.what, b.source, b.external, b.goalKb);
