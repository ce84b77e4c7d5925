// `pnpm test` after the lint: vitest and the type check side by side, not one after the
// other. The type check (tsc: one core, ~45 s) runs at the lowest CPU priority, so it only
// takes what the tests leave idle (the browser files, one at a time, mostly wait on paced
// answers) and never slows them; its report is printed after vitest's. Either failing fails
// the run. Arguments go to vitest (`pnpm test --project e2e`).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/** Runs a bin from node_modules/.bin (pnpm puts it on PATH); resolves with its exit code. */
function run(bin, args, options) {
  const child = spawn(bin, args, options);
  const exited = new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`${bin}: ${error.message}\n`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
  return { child, exited };
}

const output = [];
const typecheck = run('tsc', ['-p', 'tsconfig.json', '--noEmit'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
try {
  setPriority(typecheck.child.pid, 19);
} catch {
  // Not allowed here: it still runs, at normal priority.
}
typecheck.child.stdout.on('data', (chunk) => output.push(chunk));
typecheck.child.stderr.on('data', (chunk) => output.push(chunk));

const vitest = run('vitest', ['run', ...process.argv.slice(2)], { stdio: 'inherit' });
const testsCode = await vitest.exited;
const typecheckCode = await typecheck.exited;
process.stdout.write(Buffer.concat(output));
process.stdout.write(
  typecheckCode === 0
    ? 'typecheck: no errors\n'
    : `typecheck: failed (tsc exit ${typecheckCode})\n`,
);
process.exitCode = testsCode !== 0 ? testsCode : typecheckCode;
