import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeServer } from './fake-server.js';
import { assistantText, waitFor } from './util.js';

// zustand's vanilla tests do the same: if anything under src/core pulled React in, this
// import would throw.
vi.mock('react', () => {
  throw new Error('src/core imported react');
});

let server: FakeServer;
beforeAll(async () => {
  server = await new FakeServer({ tokens: 10, intervalMs: 1 }).start();
});
afterAll(() => server.close());

describe('the core without React', () => {
  it('runs a whole session with react mocked away', async () => {
    // The mock is in force: importing react fails (vitest wraps the factory's error).
    await expect(import('react')).rejects.toThrow(/error when mocking/);
    const core = await import('../src/core/index.js');
    const session = new core.RunSession({
      endpoint: server.url,
      key: 'no-react',
      storage: core.createMemoryStorage(),
      onWarning: () => {},
    });
    const release = session.retain();
    await session.start({ runId: 'run-no-react-0123456789' });
    await waitFor(() => session.getState().status === 'finished', 'finished');
    expect(assistantText(session.getState().messages)).toBe(FakeServer.fullText(10));
    release();
    await session.dispose();
  });

  it('no file under src/core imports react or zustand’s React entry', () => {
    const dir = join(import.meta.dirname, '../src/core');
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) =>
        /from ['"](react|react-dom|zustand)['"]/.test(readFileSync(join(dir, f), 'utf8')),
      );
    expect(offenders).toEqual([]);
  });
});
