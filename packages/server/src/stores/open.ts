import { ResumableError } from '@resumable/protocol';
import { MemoryStore } from './memory.js';
import { SqliteStore } from './sqlite.js';
import type { EventStore } from './types.js';

/**
 * Opens a store from its text form (the `RESUMABLE_STORE` variable): `memory`, or
 * `sqlite:<path>` (relative paths resolve against the working directory).
 */
export function openStore(spec: string): EventStore {
  if (spec === 'memory') return new MemoryStore();
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '')
      throw new ResumableError(
        'bad_request',
        'sqlite: needs a path, e.g. sqlite:.data/resumable.db',
      );
    return new SqliteStore({ path });
  }
  throw new ResumableError(
    'bad_request',
    `unknown store "${spec}": use "memory" or "sqlite:<path>"`,
  );
}
