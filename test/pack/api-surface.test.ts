import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What the committed API reports (packages/<name>/api/*.api.md) say about the surfaces:
 * pack.test.ts keeps them equal to the build, so reading them here reads the build. API
 * Extractor notes beside a name what it lacks: "ae-forgotten-export" (a type a public
 * name uses that its entry does not export: a user cannot name it) and "ae-undocumented".
 * The entries below are free of them; one that regresses fails here, by name.
 */

const ROOT = resolve(import.meta.dirname, '../..');

function reports(): Map<string, string> {
  const found = new Map<string, string>();
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    const dir = join(ROOT, 'packages', pkg, 'api');
    let files: string[];
    try {
      files = readdirSync(dir).filter((file) => file.endsWith('.api.md'));
    } catch {
      continue;
    }
    for (const file of files) {
      found.set(file.replace(/\.api\.md$/, ''), readFileSync(join(dir, file), 'utf8'));
    }
  }
  return found;
}

/** The names a report flags with `messageId`, e.g. `ae-forgotten-export`. */
function flagged(report: string, messageId: string): string[] {
  const names = [...report.matchAll(new RegExp(`\\(${messageId}\\)[^"\\n]*"([^"]+)"`, 'g'))];
  return [...new Set(names.map((match) => match[1]!))].sort();
}

/** Entries whose every public name's types are exported by that entry too. */
const NAMES_ALL_TYPES = [
  'hooks-attachments',
  'hooks-core',
  'hooks-observe',
  'hooks-threads',
  'hooks-turns',
  'protocol',
  'protocol-patch',
  'server',
  'server-ai-sdk',
  'server-testing',
  'ui',
  'ui-interrupts',
  'ui-thread-list',
  'ui-turns',
];

/**
 * Names an entry's public names use that another entry exports: the root of the hooks holds
 * `ResumableClient` and `RunSession` (the provider's `client`, `ResumableRun.session`) and the
 * provider's `loadEngine`, which `/core` exports - the root exporting the classes would load
 * the engine on first paint. The hooks' feature entries name the `ChatSession` they take
 * (`interruptSessionOf(chat)`, `uploadToChat(chat, file)`), not the types of its members:
 * exporting those there too would be `/core`'s surface again. `/ai-sdk`'s transport holds a
 * `ResumableClient` and gives its `ChatSession`s, and takes the client's options: `/core`'s.
 */
const ELSEWHERE: Record<string, string[]> = {
  hooks: ['EngineLoader', 'ResumableClient', 'RunSession'],
  'hooks-ai-sdk': ['ChatSession', 'ClientOptions', 'ResumableClient', 'RunSession'],
  'hooks-interrupts': [
    'ChatSessionOptions',
    'ChatState',
    'OutboxItem',
    'RunSession',
    'SendOptions',
  ],
  'hooks-upload': ['ChatSessionOptions', 'ChatState', 'OutboxItem', 'RunSession', 'SendOptions'],
};

/** Entries whose every name, and every member of one, has a doc comment. */
const DOCUMENTED = [
  'hooks',
  'hooks-ai-sdk',
  'hooks-attachments',
  'hooks-core',
  'hooks-interrupts',
  'hooks-observe',
  'hooks-threads',
  'hooks-turns',
  'hooks-upload',
  'protocol',
  'protocol-patch',
  'server',
  'server-ai-sdk',
  'server-testing',
  'ui',
  'ui-interrupts',
  'ui-thread-list',
  'ui-turns',
];

describe('the public surfaces, as their API reports show them', () => {
  const all = reports();

  it('every report is read (one per entry)', () => {
    expect([...all.keys()].sort()).toEqual(
      expect.arrayContaining(['hooks', 'hooks-core', 'protocol', 'server', 'ui']),
    );
  });

  it.each(NAMES_ALL_TYPES)('%s exports every type its names take and return', (entry) => {
    const report = all.get(entry);
    expect(report, `no api/${entry}.api.md`).toBeDefined();
    expect(flagged(report!, 'ae-forgotten-export')).toEqual([]);
  });

  it.each(Object.entries(ELSEWHERE))(
    '%s uses only these names of other entries',
    (entry, names) => {
      expect(flagged(all.get(entry)!, 'ae-forgotten-export')).toEqual(names);
    },
  );

  it.each(DOCUMENTED)('%s documents every name it exports', (entry) => {
    const report = all.get(entry)!;
    expect(flagged(report, 'ae-undocumented')).toEqual([]);
    expect(report).not.toContain('(undocumented)');
  });
});
