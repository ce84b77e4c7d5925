import type { Hono } from 'hono';
import { scriptedAgent } from './agents/scripted.js';
import type { Agent } from './agents/types.js';
import { type Authorize, tokenPolicy } from './auth.js';
import { DEFAULTS, HOUR_MS } from './defaults.js';
import { DirectoryFiles } from './files/directory.js';
import { KNOWN_FILE_TYPES } from './files/sniff.js';
import type { UploadRateLimits } from './files/upload-rate.js';
import type { FileLimits } from './http/file-routes.js';
import { createHttpApp } from './http/http-app.js';
import { definedOnly } from './runs/options.js';
import { type RunLimits, RunManager } from './runs/run-manager.js';
import { openStore } from './stores/open.js';
import type { EventStore } from './stores/types.js';

/**
 * Every limit of `createResumableApp` / `startServer` (`limits`): a run's and a client's
 * (`RunLimits`, `ClientLimits`) and the HTTP layer's own. Each defaults to its entry in
 * `DEFAULTS.limits`; give only the ones to change.
 */
export interface ServerLimits extends RunLimits {
  /**
   * Largest `POST /runs` body; larger answers `413 payload_too_large`.
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes: number;
  /**
   * Event streams (of runs and of threads) one client address may have open on this
   * instance, across every run and thread; more answer `429 too_many_requests` +
   * `Retry-After`. Without it one client could hold `maxSubscribersPerRun` on each run.
   * Requests whose address is unknown (`clientAddress` gives null) share one count: on a
   * host that does not give the socket's address, set `clientAddress`.
   * @default 1000
   */
  maxStreamsPerAddress: number;
}

/** Uploaded files (`POST /threads/{id}/files`). */
export interface FileOptions {
  /**
   * Keep uploads in this directory (`<dir>/<threadId>/<fileId>`) instead of the store.
   * @default the store: memory, SQLite BLOBs, or Redis
   */
  directory?: string;
  /**
   * Largest file; larger answers `413 payload_too_large`.
   * @default 10485760 (10 MiB)
   */
  maxFileBytes?: number;
  /**
   * Most bytes of files one thread may hold; an upload past it answers `413`.
   * @default 52428800 (50 MiB)
   */
  maxThreadBytes?: number;
  /**
   * Content types accepted, as sniffed from the bytes; others answer `415`. A subset of
   * `image/png`, `image/jpeg`, `image/gif`, `image/webp`, `application/pdf`, `text/plain`,
   * `text/markdown`.
   * @default all of them
   */
  allowedTypes?: readonly string[];
  /**
   * Uploads per minute from one client address (`clientAddress`), on this instance; more
   * answer `429` with `Retry-After`. Refused uploads count too.
   * @default 60
   */
  maxUploadsPerMinutePerAddress?: number;
  /**
   * Uploads per minute to one thread, on this instance; more answer `429` with `Retry-After`.
   * @default 30
   */
  maxUploadsPerMinutePerThread?: number;
  /**
   * Bytes of uploads per minute from one client address, on this instance; more answer
   * `429` with `Retry-After`. At least `maxFileBytes`.
   * @default 104857600 (100 MiB)
   */
  maxUploadBytesPerMinutePerAddress?: number;
  /**
   * Hours an upload may wait for a prompt to name it; past them it is deleted (`GET` then
   * answers `404 file_not_found`). A file a prompt named is kept until its thread is
   * deleted. Not swept in a `directory`.
   * @default 24
   */
  unreferencedHours?: number;
}

/**
 * How `createResumableApp` (and `createResumableHandler`, `startServer`) serves: the store,
 * the agent, who may do what, and the limits. Every option is optional.
 */
export interface ResumableServerOptions {
  /**
   * Where runs are kept: an `EventStore`, or `'memory'`, `'sqlite:<path>'`.
   * @default 'memory'
   */
  store?: EventStore | string;
  /**
   * Produces the events of each run.
   * @default scriptedAgent()
   */
  agent?: Agent;
  /**
   * Replaces the thread-token policy (protocol.md, "Access").
   * @default the token policy: a thread's token for everything on it
   */
  authorize?: Authorize;
  /**
   * Browser origins allowed to call the API. CORS is closed when absent.
   * @default { origins: [] }
   */
  cors?: {
    /** Exact origins (`https://app.example.com`) that may call the API from a browser. */
    origins: string[];
  };
  /**
   * The limits to change from their defaults (`DEFAULTS.limits`). A `RangeError` when
   * `maxBodyBytes` exceeds `maxPromptBytesPerMinutePerAddress`, or `maxRunMs` (1 to
   * 2147483647) or `maxThreadMessages` (1 to 20000) is out of range.
   */
  limits?: Partial<ServerLimits>;
  /**
   * Uploads (`POST /threads/{id}/files`): where they are kept and how large they may be.
   * @default kept in the store, with the limits of `DEFAULTS.files`
   */
  files?: FileOptions;
  /** How long what a run leaves behind is kept. */
  retention?: {
    /**
     * Hours a finished run's events are kept (its snapshot is kept with the thread).
     * @default 168
     */
    eventsHours?: number;
    /**
     * Events each thread's event stream keeps (the newest); resuming before them answers
     * `410 offset_expired`.
     * @default 1000
     */
    threadEvents?: number;
  };
  /**
   * Longest silence on a live stream: an idle one gets `: ping` at least this often.
   * @default 15000
   */
  heartbeatMs?: number;
  /**
   * Path every route is mounted under.
   * @default '' (the root) for `createResumableApp`, '/api' for `startServer`
   */
  basePath?: string;
  /**
   * With 32 or more subscribers on a run, live events go out at most once per this many
   * milliseconds, grouped: fewer socket writes for a little latency. `0` disables it.
   * @default 15
   */
  fanoutCoalesceMs?: number;
  /**
   * Where the server reports what it dropped or could not do (an agent's invalid event,
   * a failed retention sweep).
   * @default console.warn with a `[resumable]` prefix
   */
  log?: (message: string) => void;
  /**
   * The client's address for the per-address limits (`limits.maxRunsPerMinutePerAddress`,
   * `limits.maxRunningRunsPerAddress`, `files.maxUploadsPerMinutePerAddress`). Behind a proxy, read it from the proxy's header.
   * Requests without one (null or empty) share one count in every per-address limit
   * (runs, prompt bytes, running runs, uploads, upload bytes, open streams), logged once.
   * @default the socket's remote address on Node, else none
   */
  clientAddress?: (request: Request, env: unknown) => string | null;
  /**
   * How often a single-instance store (memory, SQLite) is swept for runs left `running`
   * with no producer, which then end `agent_lost`.
   * @default 60000
   */
  orphanSweepMs?: number;
  /**
   * This instance's id (the owner of the runs it produces).
   * @default a random UUID
   */
  instanceId?: string;
  /**
   * With a shared store (Redis): how long the ownership lease of a run lasts without
   * renewal (renewed every third of it). When an instance dies, another one ends its runs
   * `agent_lost` once their leases lapse.
   * @default 15000
   */
  leaseMs?: number;
}

/** The server `createResumableApp` made: its routes, and the parts behind them. */
export interface ResumableApp {
  /** A Hono app: `app.fetch` is the Web `(Request) => Response` handler. */
  app: Hono;
  /**
   * What runs the runs: for an application's own routes (`startServerRun`, counts,
   * `cancel`) and for tests (`dropConnections`).
   */
  manager: RunManager;
  /** The store the server opened (or was given); `close()` closes it. */
  store: EventStore;
  /** Resolves once start-up work is done (orphaned runs ended); requests wait for it. */
  ready: Promise<void>;
  /** Ends streams and runs, then closes the store. */
  close(): Promise<void>;
}

/**
 * The whole server as a Web handler, for any runtime that speaks `Request`/`Response`
 * (Node via `startServer`, Next.js route handlers, Bun, Deno).
 *
 * Throws a `RangeError` for options that contradict each other or a bound
 * (`limits.maxBodyBytes` over `limits.maxPromptBytesPerMinutePerAddress`,
 * `files.maxFileBytes` over `files.maxUploadBytesPerMinutePerAddress`, an unknown type in
 * `files.allowedTypes`, `limits.maxRunMs` or `limits.maxThreadMessages` out of range), and
 * `ResumableError('bad_request')` for a `store` text `openStore` does not know.
 */
export function createResumableApp(options: ResumableServerOptions = {}): ResumableApp {
  const { maxBodyBytes: _body, maxStreamsPerAddress, ...runLimits } = options.limits ?? {};
  const maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULTS.limits.maxBodyBytes;
  const promptBudget =
    runLimits.maxPromptBytesPerMinutePerAddress ??
    DEFAULTS.limits.maxPromptBytesPerMinutePerAddress;
  // A body the per-minute budget can never take would answer 429 to every retry for good.
  if (maxBodyBytes > promptBudget) {
    throw new RangeError(
      `limits.maxBodyBytes (${maxBodyBytes}) must not exceed limits.maxPromptBytesPerMinutePerAddress (${promptBudget})`,
    );
  }
  const store =
    typeof options.store === 'object' ? options.store : openStore(options.store ?? DEFAULTS.store);
  const basePath = options.basePath ?? DEFAULTS.basePath;
  const files = fileLimits(options.files ?? {}, store);
  const manager = new RunManager({
    store,
    files: {
      store: files.files,
      basePath: basePath === '/' ? '' : basePath.replace(/\/$/, ''),
      unreferencedMs:
        (options.files?.unreferencedHours ?? DEFAULTS.files.unreferencedHours) * HOUR_MS,
    },
    agent: options.agent ?? scriptedAgent(),
    limits: runLimits,
    maxBodyBytes,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.retention?.eventsHours === undefined
      ? {}
      : { retentionHours: options.retention.eventsHours }),
    ...(options.retention?.threadEvents === undefined
      ? {}
      : { threadEventsKept: options.retention.threadEvents }),
    ...(options.instanceId === undefined ? {} : { instanceId: options.instanceId }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.fanoutCoalesceMs === undefined
      ? {}
      : { fanoutCoalesceMs: options.fanoutCoalesceMs }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.orphanSweepMs === undefined ? {} : { orphanSweepMs: options.orphanSweepMs }),
  });
  const ready = manager.init();
  // Surface start-up failures to whoever awaits `ready`, not as an unhandled rejection.
  ready.catch(() => {});
  const http = createHttpApp({
    manager,
    authorize: options.authorize ?? tokenPolicy,
    corsOrigins: options.cors?.origins ?? [],
    maxBodyBytes,
    maxStreamsPerAddress: maxStreamsPerAddress ?? DEFAULTS.limits.maxStreamsPerAddress,
    basePath,
    files,
    ready,
    ...(options.clientAddress ? { clientAddress: options.clientAddress } : {}),
  });
  const app = http;
  let closed: Promise<void> | null = null;
  return {
    app,
    manager,
    store,
    ready,
    close() {
      closed ??= (async () => {
        await ready.catch(() => {});
        await manager.close();
        await store.close();
      })();
      return closed;
    },
  };
}

/** The file options with their defaults, checked. */
function fileLimits(options: FileOptions, store: EventStore): Omit<FileLimits, 'basePath'> {
  const known = new Set<string>(KNOWN_FILE_TYPES);
  const allowedTypes = options.allowedTypes ?? KNOWN_FILE_TYPES;
  const unknown = allowedTypes.filter((type) => !known.has(type));
  if (unknown.length > 0) {
    throw new RangeError(
      `files.allowedTypes: the server cannot recognise ${unknown.join(', ')} (it knows ${[...known].join(', ')})`,
    );
  }
  const maxFileBytes = options.maxFileBytes ?? DEFAULTS.files.maxFileBytes;
  const {
    maxUploadsPerMinutePerAddress,
    maxUploadsPerMinutePerThread,
    maxUploadBytesPerMinutePerAddress,
  } = DEFAULTS.files;
  const rate: UploadRateLimits = {
    maxUploadsPerMinutePerAddress,
    maxUploadsPerMinutePerThread,
    maxUploadBytesPerMinutePerAddress,
    ...definedOnly(uploadRateOf(options)),
  };
  // A file the per-minute budget can never take would answer 429 to every retry for good.
  if (maxFileBytes > rate.maxUploadBytesPerMinutePerAddress) {
    throw new RangeError(
      `files.maxFileBytes (${maxFileBytes}) must not exceed files.maxUploadBytesPerMinutePerAddress (${rate.maxUploadBytesPerMinutePerAddress})`,
    );
  }
  return {
    files: options.directory ? new DirectoryFiles(options.directory) : store.files,
    maxFileBytes,
    maxThreadBytes: options.maxThreadBytes ?? DEFAULTS.files.maxThreadBytes,
    allowedTypes,
    rate,
  };
}

function uploadRateOf(options: FileOptions): Partial<UploadRateLimits> {
  return {
    maxUploadsPerMinutePerAddress: options.maxUploadsPerMinutePerAddress,
    maxUploadsPerMinutePerThread: options.maxUploadsPerMinutePerThread,
    maxUploadBytesPerMinutePerAddress: options.maxUploadBytesPerMinutePerAddress,
  } as Partial<UploadRateLimits>;
}
