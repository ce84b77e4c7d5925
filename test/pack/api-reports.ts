import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from '@microsoft/api-extractor';

/**
 * The API report (API Extractor's `.api.md`) of every public entry of every package, made
 * from the built declarations (`dist/`, as `pnpm build` leaves them) and compared with the
 * committed one in `packages/<name>/api/`. `pnpm api` builds and writes them (update mode);
 * test/pack/pack.test.ts checks them after its own build, so a change to a public surface is
 * a visible diff in review.
 */

const ROOT = resolve(import.meta.dirname, '../..');

export interface ApiEntry {
  /** `packages/<dir>` */
  dir: string;
  /** `@resumable/server/ai-sdk` */
  entry: string;
  /** The built declaration file of the entry (its `types` condition). */
  types: string;
  /** `server-ai-sdk`: the report is `api/<report>.api.md`. */
  report: string;
}

interface Manifest {
  name: string;
  exports: Record<string, string | Record<string, string>>;
}

/** Every `exports` entry with declarations, of every package under packages/. */
export function apiEntries(packages: string[]): ApiEntry[] {
  return packages.flatMap((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    const unscoped = manifest.name.replace(/^@[^/]+\//, '');
    return Object.entries(manifest.exports).flatMap(([key, target]) => {
      if (typeof target !== 'object' || !target.types) return [];
      const sub = key === '.' ? '' : key.slice(2);
      return [
        {
          dir,
          entry: sub ? `${manifest.name}/${sub}` : manifest.name,
          types: join(dir, target.types),
          report: sub ? `${unscoped}-${sub.replaceAll('/', '-')}` : unscoped,
        },
      ];
    });
  });
}

export interface ReportResult {
  entry: string;
  /** The committed report, relative to the repository. */
  file: string;
  /** The committed report differs from the declarations (or is missing). */
  changed: boolean;
  /** API Extractor's errors and warnings (forgotten exports and the like), one a line. */
  messages: string[];
}

/**
 * The reports of `entries`; with `update` the committed files are written. The entries of
 * one package share one TypeScript program (API Extractor's `CompilerState`): one program
 * per package instead of one per entry.
 */
export function apiReports(entries: ApiEntry[], update: boolean): ReportResult[] {
  const results: ReportResult[] = [];
  for (const dir of new Set(entries.map((api) => api.dir))) {
    const own = entries.filter((api) => api.dir === dir);
    const files = own.map((api) => api.types);
    const state = CompilerState.create(configOf(own[0]!, files, tmpdir()), {
      additionalEntryPoints: files,
    });
    for (const api of own) results.push(apiReport(api, update, files, state));
  }
  return results;
}

/**
 * Makes one entry's report; with `update` it writes the committed file, else it only
 * compares. Documentation-comment lint (TSDoc) is off: the reports are about the surface.
 */
function apiReport(
  api: ApiEntry,
  update: boolean,
  files: string[],
  compilerState: CompilerState,
): ReportResult {
  const temp = mkdtempSync(join(tmpdir(), 'api-report-'));
  if (update) mkdirSync(join(api.dir, 'api'), { recursive: true });
  const messages: string[] = [];
  try {
    const config = configOf(api, files, temp);
    Extractor.invoke(config, {
      compilerState,
      localBuild: false,
      messageCallback: (message: ExtractorMessage) => {
        message.handled = true;
        if (
          message.logLevel === ExtractorLogLevel.Warning ||
          message.logLevel === ExtractorLogLevel.Error
        ) {
          messages.push(`${message.messageId}: ${message.text}`);
        }
      },
    });
    // API Extractor's own comparison would see the places it quotes (`dist/<chunk>-<hash>.d.ts:6:1`)
    // change whenever a chunk's hash does: the report is compared and kept without them.
    const made = withoutPlaces(readFileSync(join(temp, `${api.report}.api.md`), 'utf8'));
    const file = join(api.dir, 'api', `${api.report}.api.md`);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (update && committed !== made) writeFileSync(file, made);
    return {
      entry: api.entry,
      file: file.slice(ROOT.length + 1),
      changed: committed !== made,
      messages: messages.filter((message) => !message.startsWith('console-api-report')),
    };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** `// dist/index-DO_Pz13S.d.ts:24:3 - (ae-undocumented) …` -> `// (ae-undocumented) …` */
function withoutPlaces(report: string): string {
  return report.replace(/^\/\/ dist\/\S+:\d+:\d+ - /gm, '// ');
}

/** API Extractor's settings for one entry; `files` are the program's roots. */
function configOf(api: ApiEntry, files: string[], temp: string): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: api.dir,
      newlineKind: 'lf',
      mainEntryPointFilePath: api.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            jsx: 'react-jsx',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files,
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: api.report,
        reportFolder: join(api.dir, 'api'),
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // The report itself says where a name is missing from the entry (an
          // "ae-forgotten-export" note beside it): reviewed in the diff, not an error.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Likewise "(undocumented)" beside a name without a doc comment.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(api.dir, 'package.json'),
  });
}
