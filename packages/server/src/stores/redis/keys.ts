/**
 * Every key the Redis store uses, under one prefix so several deployments (or tests) can
 * share a Redis database without seeing each other.
 *
 * | key | type | holds |
 * |---|---|---|
 * | `thread:<id>` | hash | token, createdAt, run and message counters |
 * | `thread:<id>:runs` | sorted set | run ids scored by creation order |
 * | `thread:<id>:history` | sorted set | message ids scored by history position |
 * | `thread:<id>:messages` | hash | message id → message JSON |
 * | `thread:<id>:interrupts` | hash | interrupt id → `runId|status|answeredAt` of its answer |
 * | `thread:<id>:events` | stream | the thread's event log, id `<offset>-0`, field `e` = JSON |
 * | `thread:<id>:files` | hash | file id → file JSON (`StoredFile`); `:bytes` → their total size |
 * | `thread:<id>:file:<fileId>` | string | the file's bytes |
 * | `run:<id>` | hash | the `RunRecord` (status, lastOffset, snapshot, owner, …) |
 * | `run:<id>:events` | stream | one entry per event, id `<offset>-0`, field `e` = JSON |
 * | `run:<id>:lease` | string | the owning instance's id, with a TTL |
 * | `running` | set | ids of runs still running (what the orphan sweep scans) |
 * | `ended` | sorted set | ended runs whose events are kept, scored by `endedAt` |
 * | `cancel` | channel | run ids whose cancel was requested |
 * | `files:pending` | sorted set | `<threadId>/<fileId>` of uploads no prompt named yet, scored by upload time |
 *
 * An id may contain `:` (client-chosen ids do), so in a key it is written with `:` and `%`
 * percent-encoded (`idPart`): thread `a:events`'s hash must not be thread `a`'s event
 * stream. The mapping is one-to-one, so any string looked up (a path parameter) is safe.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  thread(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}`;
  }
  threadRuns(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:runs`;
  }
  history(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:history`;
  }
  messages(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:messages`;
  }
  interrupts(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:interrupts`;
  }
  threadEvents(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:events`;
  }
  files(threadId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:files`;
  }
  file(threadId: string, fileId: string): string {
    return `${this.prefix}thread:${idPart(threadId)}:file:${idPart(fileId)}`;
  }
  get pendingFiles(): string {
    return `${this.prefix}files:pending`;
  }
  run(runId: string): string {
    return `${this.prefix}run:${idPart(runId)}`;
  }
  events(runId: string): string {
    return `${this.prefix}run:${idPart(runId)}:events`;
  }
  lease(runId: string): string {
    return `${this.prefix}run:${idPart(runId)}:lease`;
  }
  get running(): string {
    return `${this.prefix}running`;
  }
  get ended(): string {
    return `${this.prefix}ended`;
  }
  get cancelChannel(): string {
    return `${this.prefix}cancel`;
  }
}

/** Stream entry id of an offset (offsets are the ids' millisecond part). */
export function entryId(offset: number): string {
  return `${offset}-0`;
}

/** Offset of a stream entry id `<offset>-0`. */
export function offsetOf(id: string): number {
  const dash = id.indexOf('-');
  return Number(dash === -1 ? id : id.slice(0, dash));
}

/** An id as a key segment: `%` and `:` percent-encoded, nothing else changed. */
export function idPart(id: string): string {
  return id.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));
}
