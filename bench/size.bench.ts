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
 *
 * The devtools rows (issue #29): an app rendering `<ResumableDevtools />` from
 * `@resumable/devtools` in a production build, against the same app without it — what the
 * page can load (`reachable`) and the bytes from @resumable/devtools in it, and in the
 * output (`written`) — the same app opted in (`@resumable/devtools/production`), and the
 * production row built without the `production` export condition (esbuild alone).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEVTOOLS_BUNDLES,
  GOAL_BUNDLES,
  measure,
  measureDevtools,
  measureGoal,
  type Row,
} from './lib/bundle-size.js';
import { writeResults } from './lib/results.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The exact versions pinned in bench/package.json (some packages do not export theirs). */
const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const version = (pkg: string) => pinned.devDependencies[pkg] ?? '?';

const [hooks, ui, markdown] = GOAL_BUNDLES;
const rows: Row[] = [
  await measureGoal(hooks!),
  await measure(
    '@resumable/ui',
    '<ResumableChat> and every part, hooks and Markdown included',
    "export * from '@resumable/ui';",
  ),
  await measureGoal(ui!),
  await measureGoal(markdown!),
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

const devtools: Row[] = [];
for (const bundle of DEVTOOLS_BUNDLES) devtools.push(await measureDevtools(bundle));

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

console.log(
  '\ndevtools (same method; reachable = first paint + every chunk an import() left reaches)\n',
);
console.log(
  `${'bundle'.padEnd(44)} ${'first paint'.padStart(12)} ${'reachable'.padStart(12)} ${'devtools bytes reachable / written'.padStart(36)}`,
);
for (const r of devtools) {
  const a = r.attributed!;
  console.log(
    `${r.name.padEnd(44)} ${`${r.firstPaint.minBytes} B`.padStart(12)} ${`${r.reachable.minBytes} B`.padStart(12)} ${`${a.reachable} / ${a.written} B`.padStart(36)}`,
  );
}
const [base, production] = devtools;
console.log(
  `\n<ResumableDevtools /> in production adds ${production!.reachable.minBytes - base!.reachable.minBytes} B minified to what the page can load and ${production!.lazy.minBytes - base!.lazy.minBytes} B to the lazy chunks written (${production!.attributed!.reachable} B from @resumable/devtools: the stand-in that renders nothing)`,
);

writeResults('size', {
  bench: 'size',
  date: new Date().toISOString(),
  node: process.version,
  method:
    'esbuild ' +
    version('esbuild') +
    ': bundle, minify, ESM with code splitting, target es2022, NODE_ENV=production, React external; gzip -9 of the concatenated chunks. firstPaint = the entry chunk and the chunks it imports statically; lazy = every chunk behind import().',
  rows,
  devtools,
});
