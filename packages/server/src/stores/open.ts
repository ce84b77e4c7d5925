import { ResumableError } from '@resumable/protocol';
import { MemoryStore } from './memory/memory-store.js';
import { RedisStore } from './redis/redis-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { EventStore } from './types.js';

/**
 * Opens a store from its text form (the `RESUMABLE_STORE` variable): `memory`,
 * `sqlite:<path>` (relative paths resolve against the working directory), a Redis URL
 * `redis://host:port[/db]` / `rediss://…` (several instances share it), or a Redis Cluster
 * `redis+cluster://host:port,host:port,…` / `rediss+cluster://…` (seed nodes).
 */
export function openStore(spec: string): EventStore {
  if (spec === 'memory') return new MemoryStore();
  if (/^rediss?(\+cluster)?:\/\//.test(spec)) {
    return new RedisStore({ url: spec });
  }
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
    `unknown store "${spec}": use "memory", "sqlite:<path>", "redis://host:port" or "redis+cluster://host:port,host:port"`,
  );
}
