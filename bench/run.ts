/**
 * `pnpm bench`: runs every benchmark in this folder, one child process each (so one's
 * memory or timers cannot skew another's figures), in a fixed order. Each writes its
 * figures to bench/results/<name>.json and prints its own table.
 *
 * `pnpm bench [name…]` runs the named ones only. `BENCH_QUICK=1 pnpm bench [name]` uses tiny
 * settings, a smoke test of each script: its figures go to a temp folder, not bench/results.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const suites = [
  'fold',
  'linearity',
  'server',
  'resume',
  'ai-sdk',
  'redis',
  'fleet',
  'chaos',
  'tabs',
  'size',
  'ui',
].filter((name) => only.length === 0 || only.includes(name));
let failed = 0;
for (const name of suites) {
  const file = join(here, `${name}.bench.ts`);
  if (!existsSync(file)) continue;
  console.log(`\n━━ bench: ${name} ━━`);
  const result = spawnSync(
    process.execPath,
    ['--conditions=@resumable/source', '--import', 'tsx', '--expose-gc', file],
    { stdio: 'inherit', cwd: join(here, '..') },
  );
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
