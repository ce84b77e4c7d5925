/**
 * Every key the Redis store uses, under one prefix so several deployments (or tests) can
 * share a Redis database without seeing each other.
 *
 * **Everything of one thread is in one hash slot.** Each key of a thread, its runs' too,
 * starts with `<prefix>{<threadId>}`: Redis Cluster hashes only what is between the
 * braces (the hash tag), so a thread's keys live on one shard and every script touches
 * one slot — atomic on a cluster as on a single Redis. A cluster shards by conversation.
 *
 * | key | type | holds |
 * |---|---|---|
 * | `{T}:thread` | hash | token, createdAt, title, run and message counters |
 * | `{T}:deleted` | string | the thread's tombstone (when it was deleted): its id is never a thread again |
 * | `{T}:runs` | sorted set | run ids scored by creation order |
 * | `{T}:running` | set | ids of the thread's runs still running (the one-run claim) |
 * | `{T}:history` | sorted set | message ids scored by history position |
 * | `{T}:messages` | hash | message id → message JSON |
 * | `{T}:interrupts` | hash | interrupt id → `runId|status|answeredAt|payload` of its answer |
 * | `{T}:events` | stream | the thread's event log, id `<offset>-0`, field `e` = JSON |
 * | `{T}:events:live` | shard channel | each thread event as it is stored |
 * | `{T}:files` | hash | file id → file JSON (`StoredFile`); `:bytes` → their total size |
 * | `{T}:file:<F>` | string | the file's bytes |
 * | `{T}:upload:<F>` | string | an upload's bytes as they arrive (appended), with a TTL, until it is committed as `{T}:file:<F>` |
 * | `{T}:files:pending` | set | ids of the thread's uploads no prompt named yet |
 * | `{T}:rate:<name>` | sorted set | the thread's rate window (run starts, uploads) |
 * | `{T}:run:<R>` | hash | the `RunRecord` (status, lastOffset, snapshot, owner, …) |
 * | `{T}:run:<R>:events` | stream | one entry per event, id `<offset>-0`, field `e` = JSON |
 * | `{T}:run:<R>:lease` | string | the owning instance's id, with a TTL |
 * | `{T}:run:<R>:live` | shard channel | each stored batch (`SPUBLISH`), for live tails |
 * | `runthread:<R>` | string | the run's thread id: how a run is found from its id alone |
 * | `active-runs` | sorted set | `<T>:<R>` of running runs, scored by lease expiry (the orphan sweep) |
 * | `ended-runs` | sorted set | `<T>:<R>` of ended runs whose events are kept, scored by `endedAt` |
 * | `files:pending` | sorted set | `<T>/<F>` of uploads no prompt named yet, scored by upload time (the sweep's index) |
 * | `rate:<name>:<client>` | sorted set | a client address's rate window |
 * | `quota:<name>:<client>` | sorted set | a client address's running runs, scored by lease expiry |
 * | `cancel` | channel | run ids whose cancel was requested |
 *
 * The keys outside a thread (`runthread:`, the indexes, the client windows) are each one
 * key on its own: no script touches two slots. The indexes are kept beside the thread's
 * script (written before a run exists, removed after it ended) and every reader of them
 * checks the thread's own keys, which are the truth.
 *
 * An id may contain any character, so in a key it is written with `%`, `:`, `{` and `}`
 * percent-encoded (`idPart`): thread `a:events`'s hash must not be thread `a`'s event
 * stream, and no id may end a hash tag early. The mapping is one-to-one, so any string
 * looked up (a path parameter) is safe.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {
    // A brace in the prefix would become every key's hash tag: one slot for everything.
    if (/[{}]/.test(prefix))
      throw new RangeError(`a Redis key prefix cannot hold { or }: ${prefix}`);
  }

  /** `<prefix>{<threadId>}`: the part every key of the thread starts with. */
  private tag(threadId: string): string {
    return `${this.prefix}{${idPart(threadId)}}`;
  }

  thread(threadId: string): string {
    return `${this.tag(threadId)}:thread`;
  }
  deleted(threadId: string): string {
    return `${this.tag(threadId)}:deleted`;
  }
  threadRuns(threadId: string): string {
    return `${this.tag(threadId)}:runs`;
  }
  threadRunning(threadId: string): string {
    return `${this.tag(threadId)}:running`;
  }
  history(threadId: string): string {
    return `${this.tag(threadId)}:history`;
  }
  messages(threadId: string): string {
    return `${this.tag(threadId)}:messages`;
  }
  interrupts(threadId: string): string {
    return `${this.tag(threadId)}:interrupts`;
  }
  threadEvents(threadId: string): string {
    return `${this.tag(threadId)}:events`;
  }
  threadLive(threadId: string): string {
    return `${this.tag(threadId)}:events:live`;
  }
  files(threadId: string): string {
    return `${this.tag(threadId)}:files`;
  }
  file(threadId: string, fileId: string): string {
    return `${this.tag(threadId)}:file:${idPart(fileId)}`;
  }
  upload(threadId: string, fileId: string): string {
    return `${this.tag(threadId)}:upload:${idPart(fileId)}`;
  }
  threadPendingFiles(threadId: string): string {
    return `${this.tag(threadId)}:files:pending`;
  }
  threadRate(threadId: string, name: string): string {
    return `${this.tag(threadId)}:rate:${name}`;
  }
  run(threadId: string, runId: string): string {
    return `${this.tag(threadId)}:run:${idPart(runId)}`;
  }
  events(threadId: string, runId: string): string {
    return `${this.run(threadId, runId)}:events`;
  }
  lease(threadId: string, runId: string): string {
    return `${this.run(threadId, runId)}:lease`;
  }
  runLive(threadId: string, runId: string): string {
    return `${this.run(threadId, runId)}:live`;
  }
  runThread(runId: string): string {
    return `${this.prefix}runthread:${idPart(runId)}`;
  }
  get activeRuns(): string {
    return `${this.prefix}active-runs`;
  }
  get endedRuns(): string {
    return `${this.prefix}ended-runs`;
  }
  get pendingFiles(): string {
    return `${this.prefix}files:pending`;
  }
  clientRate(name: string, client: string): string {
    return `${this.prefix}rate:${name}:${idPart(client)}`;
  }
  clientQuota(name: string, client: string): string {
    return `${this.prefix}quota:${name}:${idPart(client)}`;
  }
  get cancelChannel(): string {
    return `${this.prefix}cancel`;
  }
}

/** The member naming a run in `active-runs` and `ended-runs`: `<T>:<R>`, both encoded. */
export function runMember(threadId: string, runId: string): string {
  return `${idPart(threadId)}:${idPart(runId)}`;
}

/** The thread and run of a `runMember` (encoded ids never contain `:`). */
export function parseRunMember(member: string): { threadId: string; runId: string } {
  const colon = member.indexOf(':');
  return {
    threadId: decodeIdPart(member.slice(0, colon)),
    runId: decodeIdPart(member.slice(colon + 1)),
  };
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

const ENCODED: Record<string, string> = { '%': '%25', ':': '%3A', '{': '%7B', '}': '%7D' };
const DECODED: Record<string, string> = { '%25': '%', '%3A': ':', '%7B': '{', '%7D': '}' };

/** An id as a key segment: `%`, `:`, `{` and `}` percent-encoded, nothing else changed. */
export function idPart(id: string): string {
  return id.replace(/[%:{}]/g, (c) => ENCODED[c]!);
}

/** The id an `idPart` was made from. */
export function decodeIdPart(part: string): string {
  return part.replace(/%(25|3A|7B|7D)/g, (code) => DECODED[code]!);
}
