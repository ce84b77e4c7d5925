import { LIVE_PUBLISH_LUA } from './live.js';

/**
 * The Lua scripts of the Redis store. Each one is a single atomic step in Redis, which is
 * what makes the conditional append, run creation and history upserts all-or-nothing
 * across any number of server instances. Every script touches the keys of one thread
 * only (keys.ts: one hash tag, one slot), so each is atomic on a Redis Cluster too.
 *
 * Every writing script starts with the `#!lua` shebang: Redis 7 then refuses the whole
 * script up front when it is out of memory, instead of failing at a write half-way
 * through (a script's earlier writes are never rolled back). Read-only scripts declare
 * `flags=no-writes` so they also run while Redis refuses writes.
 */

/**
 * KEYS: thread, its tombstone. ARGV: token, createdAt, firstRunId ('' = none). → 1 created,
 * 0 existed or was deleted.
 */
export const CREATE_THREAD = `#!lua
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'createdAt', ARGV[2], 'runSeq', 0, 'msgSeq', 0)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'firstRunId', ARGV[3]) end
return 1
`;

/**
 * Lua: the key of run `id`'s hash, from the thread's run-key prefix (`{T}:run:`) and the id
 * encoded as `idPart` does (keys.ts). Used where a script reads runs named in a set.
 */
const RUN_KEY_LUA = `
local ENCODED = {['%'] = '%25', [':'] = '%3A', ['{'] = '%7B', ['}'] = '%7D'}
local function runKey(prefix, id)
  return prefix .. string.gsub(id, '[%%:{}]', ENCODED)
end
`;

/**
 * KEYS: run, thread, thread's runs (zset), thread's running runs (set), lease.
 * ARGV: runId, threadId, createdAt, owner, leaseMs, thread token ('' = any: else a thread
 *       with another token is no such thread), most running runs of the thread (0 = no
 *       limit), the thread's run-key prefix, replyTo (absent = none; '' = a root answer).
 * → {1, fields} created, {0, fields} existed, {-1} no such thread, {-2, runId} the thread
 *   already has that many running runs (the first of them named).
 *
 * The claim on the thread (its running set) is what makes "one running run per thread"
 * hold across every instance: it is taken here and released by the run's terminal append
 * in the same slot. A member whose run is no longer running (ended by a path that could
 * not release it, or removed by hand) is dropped on the way. The provisional lease covers
 * the moment between creating the run and the manager's `acquireLease`, so no other
 * instance's sweep mistakes a brand-new run for an orphan.
 */
export const CREATE_RUN = `#!lua
${RUN_KEY_LUA}
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, redis.call('HGETALL', KEYS[1])} end
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1} end
if ARGV[6] ~= '' and redis.call('HGET', KEYS[2], 'token') ~= ARGV[6] then return {-1} end
local most = tonumber(ARGV[7])
if most > 0 then
  local running = redis.call('SMEMBERS', KEYS[4])
  local live = {}
  for _, id in ipairs(running) do
    if redis.call('HGET', runKey(ARGV[8], id), 'status') == 'running' then
      live[#live + 1] = id
    else
      redis.call('SREM', KEYS[4], id)
    end
  end
  table.sort(live)
  if #live >= most then return {-2, live[1]} end
end
local seq = redis.call('HINCRBY', KEYS[2], 'runSeq', 1)
redis.call('HSET', KEYS[1], 'runId', ARGV[1], 'threadId', ARGV[2], 'status', 'running',
  'createdAt', ARGV[3], 'lastOffset', 0, 'owner', ARGV[4])
if ARGV[9] then redis.call('HSET', KEYS[1], 'replyTo', ARGV[9]) end
redis.call('ZADD', KEYS[3], seq, ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('SET', KEYS[5], ARGV[4], 'PX', ARGV[5])
return {1, redis.call('HGETALL', KEYS[1])}
`;

/** KEYS: run, events. → {fields, events stream exists (0|1)}. */
export const GET_RUN = `#!lua flags=no-writes
return {redis.call('HGETALL', KEYS[1]), redis.call('EXISTS', KEYS[2])}
`;

/**
 * KEYS: thread's runs (zset). ARGV: limit, the thread's run-key prefix.
 * → {{fields, events stream exists}, …} of the newest `limit` runs, newest first.
 */
export const LIST_RUNS = `#!lua flags=no-writes
${RUN_KEY_LUA}
local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for i, id in ipairs(ids) do
  local key = runKey(ARGV[2], id)
  out[i] = {redis.call('HGETALL', key), redis.call('EXISTS', key .. ':events')}
end
return out
`;

/**
 * The conditional append (store rule 1).
 * KEYS: run, events (stream), lease, thread's running runs (set).
 * ARGV: runId, firstOffset, count, hasEnd (0|1), status, endedAt, snapshot, eventsTtlMs,
 *       live channel ('' = a durable append: publish nothing here, see below), json × count.
 * → {1} stored, {0, expectedOffset} conflict (nothing written), {-1} no such run.
 *
 * Entry ids are `<offset>-0`, so the stream's ids are the run's offsets and a reader can
 * resume with `XRANGE` from an offset with no lookup. The terminal append releases the
 * thread's claim (its running set) in the same step. A durable append is published by
 * `MARK_DURABLE` once a replica has it; here it only records that everything before it
 * is durable (its producer sent it after the previous append's `WAIT` succeeded).
 */
export const APPEND = `#!lua
${LIVE_PUBLISH_LUA}
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {-1} end
local last = tonumber(redis.call('HGET', KEYS[1], 'lastOffset'))
local first = tonumber(ARGV[2])
if status ~= 'running' or first ~= last + 1 then return {0, last + 1} end
local count = tonumber(ARGV[3])
for i = 1, count do
  redis.call('XADD', KEYS[2], string.format('%d-0', first + i - 1), 'e', ARGV[9 + i])
end
redis.call('HSET', KEYS[1], 'lastOffset', last + count)
if ARGV[9] == '' then
  local durable = tonumber(redis.call('HGET', KEYS[1], 'durable') or '0')
  if last > durable then redis.call('HSET', KEYS[1], 'durable', last) end
end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'status', ARGV[5], 'endedAt', ARGV[6], 'snapshot', ARGV[7])
  redis.call('SREM', KEYS[4], ARGV[1])
  redis.call('DEL', KEYS[3])
  -- Retention: the events go after the TTL; the run hash and its snapshot stay.
  redis.call('PEXPIRE', KEYS[2], ARGV[8])
end
publishLive(ARGV[9], first, 10)
return {1}
`;

/**
 * After a durable append's `WAIT`: its events are on a replica.
 * KEYS: run. ARGV: last durable offset, live channel, live message ('' = none).
 * Moves the run's `durable` mark up to the offset (never down) and publishes the batch.
 */
export const MARK_DURABLE = `#!lua
local durable = tonumber(redis.call('HGET', KEYS[1], 'durable') or '0')
if tonumber(ARGV[1]) > durable then redis.call('HSET', KEYS[1], 'durable', ARGV[1]) end
if ARGV[3] ~= '' then redis.call('SPUBLISH', ARGV[2], ARGV[3]) end
return 1
`;

/**
 * A run's events after an offset, for readers.
 * KEYS: run, events, lease. ARGV: first offset wanted, limit.
 * → XRANGE entries. While the run's producer holds its lease, a durable run is read only
 * up to its `durable` mark: an event a replica has not acknowledged yet is shown to no
 * one (a failover may lose it). A run without a producer is read whole: what is stored is
 * all there will be (the sweep ends it after its last event).
 */
export const READ_EVENTS = `#!lua flags=no-writes
local upto = '+'
local durable = redis.call('HGET', KEYS[1], 'durable')
if durable and redis.call('HGET', KEYS[1], 'status') == 'running'
  and redis.call('EXISTS', KEYS[3]) == 1 then
  if tonumber(durable) < tonumber(ARGV[1]) then return {} end
  upto = durable .. '-0'
end
return redis.call('XRANGE', KEYS[2], ARGV[1] .. '-0', upto, 'COUNT', ARGV[2])
`;

/** KEYS: lease. ARGV: owner, ttlMs. → 1 held by owner now, 0 held by someone else. */
export const ACQUIRE_LEASE = `#!lua
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/**
 * KEYS: lease, run. ARGV: owner, ttlMs.
 * → {renewed (0|1), cancel requested (0|1)}.
 *
 * A lease that lapsed while its run is still `running` is taken again (a Redis restart or
 * a pause longer than the lease): if another instance ended the run meanwhile, the status
 * is no longer `running` and the owner's next append conflicts. Reporting the cancel flag
 * here makes a cancel survive a lost pub/sub message (the owner sees it within ttl/3).
 */
export const RENEW_LEASE = `#!lua
local renewed = 0
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  renewed = 1
elseif not holder and redis.call('HGET', KEYS[2], 'status') == 'running' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  renewed = 1
end
local cancel = 0
if redis.call('HGET', KEYS[2], 'cancel') == '1' then cancel = 1 end
return {renewed, cancel}
`;

/** KEYS: lease. ARGV: owner. Deletes the lease only when the owner still holds it. */
export const RELEASE_LEASE = `#!lua
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * KEYS: run. ARGV: channel, runId. Flags a running run for cancel and tells every
 * instance (a cluster carries a `PUBLISH` to every node). → 1 flagged, 0 not running.
 */
export const REQUEST_CANCEL = `#!lua
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'cancel', '1')
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`;

/**
 * KEYS: run, events. Drops an ended run's events (retention).
 * → 1 pruned, 0 nothing to do (still running, gone, or pruned before).
 */
export const PRUNE_RUN = `#!lua
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'running' then return 0 end
if redis.call('HGET', KEYS[1], 'eventsPruned') == '1' then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'eventsPruned', '1')
return 1
`;

/**
 * KEYS: thread, history order (zset), history bodies (hash). ARGV: id, json, id, json, …
 * A new id goes after every message already there; a known id keeps its place.
 * → 1 done, -1 no such thread.
 */
export const PUT_MESSAGES = `#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[3], ARGV[i]) == 0 then
    local seq = redis.call('HINCRBY', KEYS[1], 'msgSeq', 1)
    redis.call('ZADD', KEYS[2], seq, ARGV[i])
  end
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
end
return 1
`;

/**
 * KEYS: history order, history bodies. ARGV: before ('' = newest), limit.
 * → {{id, seq, id, seq, …} newest first (limit + 1 of them at most), {json, …}}.
 * One more than the page is read to learn whether an older page exists.
 */
export const LIST_MESSAGES = `#!lua flags=no-writes
local max = '+inf'
if ARGV[1] ~= '' then max = '(' .. ARGV[1] end
local rows = redis.call('ZREVRANGEBYSCORE', KEYS[1], max, '-inf', 'WITHSCORES',
  'LIMIT', 0, tonumber(ARGV[2]) + 1)
if #rows == 0 then return {rows, {}} end
local ids = {}
for i = 1, #rows, 2 do ids[#ids + 1] = rows[i] end
return {rows, redis.call('HMGET', KEYS[2], unpack(ids))}
`;

/** KEYS: every key to delete, all of one thread. → how many existed. */
export const DELETE_KEYS = `#!lua
return redis.call('DEL', unpack(KEYS))
`;

export const SCRIPTS = {
  rsCreateThread: { lua: CREATE_THREAD, numberOfKeys: 2 },
  rsCreateRun: { lua: CREATE_RUN, numberOfKeys: 5 },
  rsGetRun: { lua: GET_RUN, numberOfKeys: 2 },
  rsListRuns: { lua: LIST_RUNS, numberOfKeys: 1 },
  rsAppend: { lua: APPEND, numberOfKeys: 4 },
  rsMarkDurable: { lua: MARK_DURABLE, numberOfKeys: 1 },
  rsReadEvents: { lua: READ_EVENTS, numberOfKeys: 3 },
  rsAcquireLease: { lua: ACQUIRE_LEASE, numberOfKeys: 1 },
  rsRenewLease: { lua: RENEW_LEASE, numberOfKeys: 2 },
  rsReleaseLease: { lua: RELEASE_LEASE, numberOfKeys: 1 },
  rsRequestCancel: { lua: REQUEST_CANCEL, numberOfKeys: 1 },
  rsPruneRun: { lua: PRUNE_RUN, numberOfKeys: 2 },
  rsPutMessages: { lua: PUT_MESSAGES, numberOfKeys: 3 },
  rsListMessages: { lua: LIST_MESSAGES, numberOfKeys: 2 },
} as const;

type Arg = string | number | Buffer;
type Reply = unknown;

/** The scripts as methods of a client or a pipeline (ioredis `defineCommand`). */
export type ScriptCommands = {
  [K in keyof typeof SCRIPTS]: (...args: Arg[]) => Promise<Reply>;
};
