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
  /**
   * What the page can ever load: the first paint and every chunk an `import()` left in the
   * output reaches, transitively. A chunk esbuild wrote for an `import()` that minification
   * then removed as dead code is in `lazy`, never here.
   */
  reachable: { minBytes: number; gzipBytes: number; chunks: number };
  /** Minified bytes from source files whose path holds `attribute` (`measure`'s option). */
  attributed?: { firstPaint: number; reachable: number; written: number };
  goalGzipBytes?: number;
}

let entries = 0;

export async function measure(
  name: string,
  what: string,
  source: string,
  external: string[] = [],
  goalKb?: number,
  /** A path fragment (`packages/devtools/`): the row counts the bytes from those files. */
  attribute?: string,
  /** Build without the `production` export condition, as esbuild alone does. */
  fallback = false,
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
        // What Vite, webpack and Rollup's node-resolve set for a production build; esbuild
        // alone sets neither (`fallback` measures that).
        conditions: fallback ? ['@resumable/source'] : ['@resumable/source', 'production'],
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
    /** The chunks `main` reaches through imports of the given kinds, itself included. */
    const closure = (kinds: string[]) => {
      const seen = new Set<string>();
      const stack = [main];
      while (stack.length > 0) {
        const key = stack.pop()!;
        if (seen.has(key)) continue;
        seen.add(key);
        for (const i of outputs[key]!.imports) {
          if (kinds.includes(i.kind) && outputs[i.path]) stack.push(i.path);
        }
      }
      return seen;
    };
    const first = closure(['import-statement']);
    const reachable = closure(['import-statement', 'dynamic-import']);
    const js = Object.keys(outputs).filter((k) => k.endsWith('.js'));
    const lazy = js.filter((k) => !first.has(k));
    const attributedIn = (keys: Iterable<string>) => {
      let total = 0;
      for (const key of keys) {
        for (const [input, { bytesInOutput }] of Object.entries(outputs[key]!.inputs)) {
          if (attribute && input.includes(attribute)) total += bytesInOutput;
        }
      }
      return total;
    };
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
      reachable: { ...sum([...reachable]), chunks: reachable.size },
      ...(attribute === undefined
        ? {}
        : {
            attributed: {
              firstPaint: attributedIn(first),
              reachable: attributedIn(reachable),
              written: attributedIn(js),
            },
          }),
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

/**
 * An app's first screen with the chat hook, and `devtools` (an import of
 * `ResumableDevtools`, or nothing) rendered beside it: the devtools rows of `pnpm bench size`
 * and the "absent from production" check in test/pack.
 */
export function devtoolsApp(from: '@resumable/devtools' | '@resumable/devtools/production' | null) {
  return [
    "import { createElement } from 'react';",
    "import { useResumableChat } from '@resumable/hooks';",
    from === null
      ? 'const ResumableDevtools = null;'
      : `import { ResumableDevtools } from '${from}';`,
    'export function App() {',
    "  const chat = useResumableChat({ endpoint: '/api' });",
    '  return createElement(',
    "    'main',",
    '    null,',
    '    chat.messages.length,',
    '    ResumableDevtools && createElement(ResumableDevtools),',
    '  );',
    '}',
  ].join('\n');
}

/**
 * The devtools rows: the app without them, with them in a production build, opted in, and
 * with them built by a bundler that does not set the `production` export condition.
 */
export const DEVTOOLS_BUNDLES = [
  {
    name: 'app without devtools',
    what: 'useResumableChat in a component (the baseline of the rows below)',
    source: devtoolsApp(null),
    fallback: false,
  },
  {
    name: 'app + <ResumableDevtools />, production',
    what: 'the same app rendering <ResumableDevtools /> from @resumable/devtools, a production build (NODE_ENV=production, the production export condition as Vite, webpack, Next.js and Rollup set it)',
    source: devtoolsApp('@resumable/devtools'),
    fallback: false,
  },
  {
    name: 'app + <ResumableDevtools />, opted in',
    what: 'the same app rendering it from @resumable/devtools/production (the demo does)',
    source: devtoolsApp('@resumable/devtools/production'),
    fallback: false,
  },
  {
    name: 'app + <ResumableDevtools />, no condition',
    what: 'the production row built by esbuild alone: NODE_ENV=production but no production export condition',
    source: devtoolsApp('@resumable/devtools'),
    fallback: true,
  },
] as const;

export const measureDevtools = (b: (typeof DEVTOOLS_BUNDLES)[number]) =>
  measure(b.name, b.what, b.source, [], undefined, 'packages/devtools/', b.fallback);
