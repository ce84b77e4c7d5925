// `pnpm api`: builds every package and writes the API report of each public entry
// (packages/<name>/api/*.api.md) from the built declarations. Commit the changed reports
// with the change that made them; `pnpm test` (test/pack) fails while they differ.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { apiEntries, apiReports } from '../test/pack/api-reports.js';

const root = resolve(import.meta.dirname, '..');
execFileSync('pnpm', ['-r', '--filter', './packages/*', 'build'], { cwd: root, stdio: 'inherit' });
const packages = readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name));
for (const result of apiReports(apiEntries(packages), true)) {
  const note = result.messages.length > 0 ? `\n  ${result.messages.join('\n  ')}` : '';
  console.log(`${result.changed ? 'updated' : 'unchanged'} ${result.file}${note}`);
}
