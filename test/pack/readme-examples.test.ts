import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The READMEs' examples compile against the packages as they are: every ```ts / ```tsx
 * block that imports from `@resumable/*` is type-checked (the repository's compiler options,
 * the packages' sources), so a renamed export, option or field fails here, naming the
 * README and the line. A block may leave out what is not the point (the app's own `file`,
 * `threadId`, a component's props): names it never declares are not errors here - a
 * wrong name of a package still is, as is a wrong call, option or field. The blocks are
 * compiled as files of the demo app (apps/demo), which depends on every package and on the
 * libraries the examples use beside them (React, the AI SDK); a library it lacks (express,
 * zustand) is not checked.
 */

const ROOT = resolve(import.meta.dirname, '../..');
/** Where the examples are compiled as if they were there (they are never written). */
const HOME = join(ROOT, 'apps/demo');

/** What an example may leave undeclared, or leave loose, without being wrong. */
const NOT_THE_POINT = new Set([
  2304, // Cannot find name 'x' (the app's own, declared outside the excerpt)
  2552, // Cannot find name 'x'. Did you mean 'y'?
  2582, // Cannot find name 'describe' / 'it' (a test framework's globals)
  7005, // Variable implicitly has an 'any' type
  7006, // Parameter implicitly has an 'any' type
  7031, // Binding element implicitly has an 'any' type
  7034, // Variable implicitly has type 'any' in some locations
  18004, // No value exists in scope for the shorthand property 'x' (declared outside)
]);

/** "Cannot find module 'express'": a library the demo does not depend on (ours must resolve). */
function otherLibrary(diagnostic: ts.Diagnostic): boolean {
  const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  return diagnostic.code === 2307 && !text.includes("'@resumable/");
}

interface Example {
  /** `packages/hooks/README.md:812` (the line of the block's first code line). */
  where: string;
  /** The virtual file the block is compiled as. */
  file: string;
  code: string;
}

function readmes(): string[] {
  const packages = readdirSync(join(ROOT, 'packages')).map((dir) =>
    join('packages', dir, 'README.md'),
  );
  return ['README.md', ...packages].filter((file) => {
    try {
      readFileSync(join(ROOT, file));
      return true;
    } catch {
      return false;
    }
  });
}

/** The ```ts / ```tsx blocks of `readme` that import from one of the packages. */
function examplesOf(readme: string): Example[] {
  const lines = readFileSync(join(ROOT, readme), 'utf8').split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|tsx|typescript)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    const code = lines.slice(start, end).join('\n');
    i = end;
    if (!/from '@resumable\//.test(code)) continue;
    const extension = open[1] === 'tsx' || /<[A-Z][A-Za-z]*[\s/>]/.test(code) ? 'tsx' : 'ts';
    const name = `${readme.replaceAll('/', '_').replace(/\.md$/, '')}_${start + 1}`;
    found.push({
      where: `${readme}:${start + 1}`,
      file: join(HOME, `.readme-example-${name}.${extension}`),
      // A module of its own even without an import left after editing.
      code: `${code}\nexport {};\n`,
    });
  }
  return found;
}

/** Type-checks every example in one program; the diagnostics that count, per example. */
function check(examples: Example[]): Map<string, string[]> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  Object.assign(options, { noEmit: true, types: ['node'], noUnusedLocals: false });
  const byFile = new Map(examples.map((example) => [example.file, example]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => byFile.has(file) || fileExists(file);
  host.readFile = (file) => byFile.get(file)?.code ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => {
    const example = byFile.get(file);
    return example
      ? ts.createSourceFile(file, example.code, language, true)
      : getSourceFile(file, language, ...rest);
  };
  const program = ts.createProgram([...byFile.keys()], options, host);
  const problems = new Map<string, string[]>();
  for (const example of examples) {
    const source = program.getSourceFile(example.file)!;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].filter((diagnostic) => !NOT_THE_POINT.has(diagnostic.code) && !otherLibrary(diagnostic));
    problems.set(
      example.where,
      diagnostics.map((diagnostic) => {
        const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const [file, first] = example.where.split(':');
        const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        return `${file}:${Number(first) + line}: TS${diagnostic.code} ${text}`;
      }),
    );
  }
  return problems;
}

describe("the READMEs' examples compile against the packages", () => {
  const examples = readmes().flatMap(examplesOf);

  it('finds the examples of every package README that shows its API', () => {
    const per = (readme: string) =>
      examples.filter((example) => example.where.startsWith(`${readme}:`)).length;
    expect(per('packages/hooks/README.md')).toBeGreaterThanOrEqual(10);
    expect(per('packages/server/README.md')).toBeGreaterThanOrEqual(4);
    expect(per('packages/ui/README.md')).toBeGreaterThanOrEqual(4);
  });

  it('every example type-checks (a renamed export, option or field fails it)', {
    timeout: 120_000,
  }, () => {
    const problems = [...check(examples).values()].flat();
    expect(problems).toEqual([]);
  });

  it('fails an example that names an export the package does not have', {
    timeout: 120_000,
  }, () => {
    const wrong: Example = {
      where: 'renamed.md:1',
      file: join(HOME, '.readme-example-renamed.ts'),
      code: "import { useResumableChats } from '@resumable/hooks';\nuseResumableChats();\nexport {};\n",
    };
    expect(check([wrong]).get('renamed.md:1')).toEqual([
      "renamed.md:1: TS2724 '\"@resumable/hooks\"' has no exported member named 'useResumableChats'. Did you mean 'useResumableChat'?",
    ]);
  });
});
