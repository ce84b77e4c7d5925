import type { Cluster, Redis } from 'ioredis';
import type { QuotaHold, RateRefusal, RateTake, SharedCounters } from '../types.js';
import type { RedisKeys } from './keys.js';

/**
 * A sliding window in a sorted set: one member per recorded take, `<weight>:<unique>`,
 * scored by Redis' own clock (`TIME`), so every instance counts on the same clock.
 * KEYS: the window. ARGV: limit, windowMs, weight, member, record (1 | 0).
 * → 0 when `weight` fits (recorded when asked), else the seconds until it would.
 */
const RATE_TAKE = `#!lua
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, windowMs, weight = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
local rows = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local used = 0
for i = 1, #rows, 2 do used = used + tonumber(string.match(rows[i], '^(%d+):')) end
if used + weight <= limit then
  if ARGV[5] == '1' then
    redis.call('ZADD', KEYS[1], now, ARGV[4])
    redis.call('PEXPIRE', KEYS[1], windowMs)
  end
  return 0
end
-- Until enough of the oldest takes leave the window (a weight over the limit by itself
-- waits for the whole window).
for i = 1, #rows, 2 do
  used = used - tonumber(string.match(rows[i], '^(%d+):'))
  if used + weight <= limit then
    return math.max(1, math.ceil((tonumber(rows[i + 1]) + windowMs - now) / 1000))
  end
end
return math.ceil(windowMs / 1000)
`;

/**
 * A quota of things held at once (running runs), each held until released or until its
 * hold lapses (its holder died): members scored by their expiry on Redis' clock.
 * KEYS: the quota. ARGV: limit, ttlMs, id. → {1} held, {0, count} full.
 */
const QUOTA_TAKE = `#!lua
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  local count = redis.call('ZCARD', KEYS[1])
  if count >= tonumber(ARGV[1]) then return {0, count} end
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return {1}
`;

/** KEYS: the quota. → how many holds it has now. */
const QUOTA_COUNT = `#!lua flags=no-writes
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;

/** KEYS: the quota. ARGV: ttlMs, id. Extends a hold still there. */
const QUOTA_RENEW = `#!lua
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 1
`;

type Call = <T>(what: string, op: (client: Redis | Cluster) => Promise<T>) => Promise<T>;

/**
 * The per-client and per-thread rate windows and quotas of the Redis store, counted in
 * Redis so that every instance sharing it enforces one budget (`SharedCounters`). A
 * thread's windows live in its slot; a client address's in keys of their own. Several
 * windows cannot be one atomic step on a cluster (their keys are in different slots):
 * each is taken atomically, all at once, and a refusal by one gives back what the others
 * took (a request racing it may meanwhile see them counted: a brief over-count, never an
 * under-count).
 */
export class RedisCounters implements SharedCounters {
  constructor(
    private readonly keys: RedisKeys,
    private readonly call: Call,
  ) {}

  check(windows: readonly RateTake[]): Promise<RateRefusal | null> {
    return this.run(windows, false);
  }

  take(windows: readonly RateTake[]): Promise<RateRefusal | null> {
    return this.run(windows, true);
  }

  async held(name: string, key: string): Promise<number> {
    const quota = this.keys.clientQuota(name, key);
    return Number(await this.call('quotaCount', (c) => c.eval(QUOTA_COUNT, 1, quota)));
  }

  async hold(hold: QuotaHold): Promise<number | null> {
    const reply = (await this.call('quotaTake', (c) =>
      c.eval(QUOTA_TAKE, 1, this.quotaKey(hold), hold.limit, ttlOf(hold.ttlMs), hold.id),
    )) as [number, number?];
    return reply[0] === 1 ? null : reply[1]!;
  }

  async renew(hold: QuotaHold): Promise<void> {
    await this.call('quotaRenew', (c) =>
      c.eval(QUOTA_RENEW, 1, this.quotaKey(hold), ttlOf(hold.ttlMs), hold.id),
    );
  }

  async release(hold: QuotaHold): Promise<void> {
    await this.call('quotaRelease', (c) => c.zrem(this.quotaKey(hold), hold.id));
  }

  /**
   * Checks (or takes) every window at once; the first refused one, by index, is the
   * answer, and what the others took is given back.
   */
  private async run(windows: readonly RateTake[], record: boolean): Promise<RateRefusal | null> {
    const tries = windows.map(async (window) => {
      if (window.weight === 0) return { wait: 0, key: '', member: '' };
      const key = this.windowKey(window);
      const member = `${window.weight}:${crypto.randomUUID()}`;
      const reply = await this.call('rateTake', (c) =>
        c.eval(
          RATE_TAKE,
          1,
          key,
          window.limit,
          window.windowMs,
          window.weight,
          member,
          record ? '1' : '0',
        ),
      );
      return { wait: Number(reply), key, member };
    });
    const results = await Promise.allSettled(tries);
    const taken = results.flatMap((result) =>
      record && result.status === 'fulfilled' && result.value.wait === 0 && result.value.key !== ''
        ? [result.value]
        : [],
    );
    const failed = results.find((result) => result.status === 'rejected');
    const refused = results.findIndex(
      (result) => result.status === 'fulfilled' && result.value.wait > 0,
    );
    if (failed || refused !== -1) await this.giveBack(taken);
    if (failed) throw (failed as PromiseRejectedResult).reason;
    if (refused === -1) return null;
    const wait = (results[refused] as PromiseFulfilledResult<{ wait: number }>).value.wait;
    return { index: refused, retryAfter: wait };
  }

  private async giveBack(taken: Array<{ key: string; member: string }>): Promise<void> {
    await Promise.all(
      taken.map(({ key, member }) =>
        this.call('rateGiveBack', (c) => c.zrem(key, member)).catch(() => 0),
      ),
    );
  }

  private windowKey(window: RateTake): string {
    return window.scope === 'thread'
      ? this.keys.threadRate(window.key, window.name)
      : this.keys.clientRate(window.name, window.key);
  }

  private quotaKey(hold: QuotaHold): string {
    return this.keys.clientQuota(hold.name, hold.key);
  }
}

function ttlOf(ms: number): number {
  return Math.max(1, Math.round(ms));
}
