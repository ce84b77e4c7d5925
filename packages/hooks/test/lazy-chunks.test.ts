/**
 * What the first paint of `@resumable/hooks` holds (issue #16): the static import graph
 * from `src/index.ts` (what a bundler puts in the entry chunk) reaches the hooks, the
 * records' read and the transcript's composition, never the engine — that is behind the
 * hooks' `import()` of `src/engine.ts`. (`pnpm bench size` measures the bytes.)
 *
 * The paths kept out of the first paint (issue #16) still work when they are needed: JSON
 * Patch support is loaded by `import()` when the first STATE_DELTA / ACTIVITY_DELTA
 * arrives, and the stream goes on without a reconnect; cancel-with-retry is loaded on the
 * first stop. Real `RunSession`, a `node:http` server on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AGUIEvent } from '@resumable/protocol';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostileServer, RUN, THREAD, TOKEN } from './hostile-server.js';
import { assistantText, type Harness, openSession, waitFor } from './util.js';

let server: HostileServer;
let h: Harness | null = null;

beforeEach(async () => {
  server = await new HostileServer().start();
});
afterEach(async () => {
  await h?.session.dispose();
  h = null;
  await server.close();
});

const EVENTS = [
  { type: 'RUN_STARTED', threadId: THREAD, runId: RUN },
  { type: 'STATE_SNAPSHOT', snapshot: { todo: ['a'], n: 1 } },
  { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Planned ' },
  {
    type: 'STATE_DELTA',
    delta: [
      { op: 'add', path: '/todo/-', value: 'b' },
      { op: 'replace', path: '/n', value: 2 },
    ],
  },
  { type: 'ACTIVITY_SNAPSHOT', messageId: 'act', activityType: 'plan', content: { step: 1 } },
  {
    type: 'ACTIVITY_DELTA',
    messageId: 'act',
    activityType: 'plan',
    patch: [{ op: 'replace', path: '/step', value: 2 }],
  },
  // RFC 6902 is strict: removing a member that is not there applies nothing.
  { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/missing' }] },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'twice.' },
  { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
  { type: 'RUN_FINISHED', threadId: THREAD, runId: RUN },
] as AGUIEvent[];

describe('lazy chunks', () => {
  it('the first state delta loads JSON Patch support, and the same stream folds on', async () => {
    server.events = EVENTS;
    // Joined after RUN_STARTED: every delta comes on the event stream.
    server.handler = (hit, _req, res) =>
      hit.route === 'snapshot' && server.json(res, 200, server.snapshot(1));
    h = openSession(server.url);
    await h.session.attach({ runId: RUN, threadId: THREAD, token: TOKEN });
    await waitFor(() => h!.session.getState().status === 'finished', 'finished');
    const { run, messages } = h.session.getState();
    expect(run.state).toStrictEqual({ todo: ['a', 'b'], n: 2 });
    expect(messages.find((m) => m.id === 'act')).toStrictEqual({
      id: 'act',
      role: 'activity',
      activityType: 'plan',
      content: { step: 2 },
    });
    expect(assistantText(messages)).toBe('Planned twice.');
    expect(run.warnings.map((w) => [w.offset, w.code])).toStrictEqual([[8, 'bad_patch']]);
    expect(run.offset).toBe(EVENTS.length);
    // Folded from one stream: loading the chunk is no reconnect.
    expect(server.hits.filter((x) => x.route === 'events').map((x) => x.after)).toStrictEqual([1]);
  });

  it('the first stop loads cancel-with-retry, and the cancel reaches the server once', async () => {
    let stream: ReturnType<HostileServer['hold']> | null = null;
    server.handler = (hit, _req, res) => {
      if (hit.route === 'snapshot') return server.json(res, 200, server.snapshot(1));
      if (hit.route !== 'events') return false;
      stream = server.hold(res);
      return true;
    };
    h = openSession(server.url);
    await h.session.attach({ runId: RUN, threadId: THREAD, token: TOKEN });
    await waitFor(() => stream !== null, 'the stream open');
    await h.session.cancel();
    expect(server.count('cancel')).toBe(1);
    expect(h.session.getState().stopped).toBe(true);
    expect(h.session.getState().connection.lastError).toBeNull();
  });
});

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * The files and packages reached from `entry` by value imports and re-exports (`import
 * type`, `export type` and `import()` are not edges): what lands in the entry's chunk.
 */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const stack = [resolve(SRC, entry)];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      let spec: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
        spec = statement.moduleSpecifier;
      } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
        spec = statement.moduleSpecifier;
      }
      if (!spec || !ts.isStringLiteral(spec)) continue;
      if (!spec.text.startsWith('.')) {
        packages.add(spec.text);
        continue;
      }
      const target = resolve(dirname(file), spec.text).replace(/\.js$/, '');
      stack.push(
        [`${target}.ts`, `${target}.tsx`].find((f) => {
          try {
            readFileSync(f);
            return true;
          } catch {
            return false;
          }
        })!,
      );
    }
  }
  return { files, packages };
}

const ENGINE = [
  'core/chat/chat-session.ts',
  'core/run/run-session.ts',
  'core/client/resumable-client.ts',
  'core/net/event-stream.ts',
  'core/run/reconnect-loop.ts',
  'core/run/followed-run.ts',
  'core/chat/outbox.ts',
  'core/run/shared-stream.ts',
  'core/records/record-writer.ts',
  'core/records/record-write.ts',
  'core/run/session-store.ts',
  'core/net/http.ts',
  'core/net/run-api.ts',
  'core/base/env.ts',
];

describe('the first paint', () => {
  it('holds the hooks, the records read and the composition; the engine is behind import()', () => {
    const first = staticGraph('index.ts');
    const rel = (f: string) => f.slice(SRC.length + 1);
    const shown = [...first.files].map(rel);
    for (const part of ENGINE) expect(shown).not.toContain(part);
    expect(shown).toEqual(
      expect.arrayContaining([
        'react/use-resumable-chat.ts',
        'react/use-resumable-run.ts',
        'core/client/first-paint.ts',
        'core/chat/branch-view.ts',
        'core/conversation/state.ts',
        'core/records/run-record.ts',
        'core/records/storage.ts',
      ]),
    );
    // Packages: no event-stream parser, no zustand, nothing of the engine's.
    expect([...first.packages].sort()).toEqual(['@resumable/protocol', 'idb-keyval', 'react']);
    // The engine chunk has them all.
    const engine = [...staticGraph('core/client/engine.ts').files].map(rel);
    expect(engine).toEqual(expect.arrayContaining(ENGINE));
  });
});
