// `pnpm lint`, after Biome: dependency-cruiser for every package with its own
// `.dependency-cruiser.cjs` (the rules: scripts/dependency-rules.cjs). A package's
// `.dependency-cruiser-known-violations.json`, when there is one, lists violations that
// were there when the rules came and are still to be fixed: those are reported as known,
// every other one fails. The packages are checked side by side; output in package order.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'node_modules', '.bin', 'depcruise');
const KNOWN = '.dependency-cruiser-known-violations.json';

const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, '.dependency-cruiser.cjs')))
  .sort();

function check(dir) {
  const args = ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err-long'];
  if (existsSync(join(dir, KNOWN))) args.push('--ignore-known', KNOWN);
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd: dir });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ code: 1, text: `${error.message}\n` }));
    child.on('close', (code) =>
      resolve({ code: code ?? 1, text: Buffer.concat(output).toString() }),
    );
  });
}

const results = await Promise.all(packages.map(check));
let failed = 0;
results.forEach(({ code, text }, index) => {
  const name = `packages/${packages[index].split(/[\\/]/).pop()}`;
  process.stdout.write(`dependency-cruiser ${name}: ${text.trim()}\n`);
  if (code !== 0) failed++;
});
if (packages.length === 0) process.stdout.write('dependency-cruiser: no package has a config\n');
process.exitCode = failed === 0 ? 0 : 1;
