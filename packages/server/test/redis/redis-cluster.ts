import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { assertRedisInstalled, freePort, waitForPort } from './redis-server.js';

/**
 * A real Redis Cluster for the tests: `primaries` redis-server processes in cluster mode,
 * each with `replicasPerPrimary` replicas, on 127.0.0.1. Every node takes two free ports
 * (its client port and its cluster bus port, `--cluster-port`), never fixed ones, so
 * several test runs on one machine never meet. `redis-cli --cluster create` joins them;
 * the cluster is ready when every node says `cluster_state:ok`, knows every node and every
 * replica's link to its primary is up. Nothing is persisted unless asked.
 */
export interface RedisCluster {
  /** `host:port` of every node, primaries first as created (seed nodes). */
  seeds: string[];
  /** `redis+cluster://…` for `RESUMABLE_STORE`. */
  url: string;
  nodes: ClusterNode[];
  /** The node that serves `key`'s slot now (asks the cluster). */
  primaryOf(key: string): Promise<ClusterNode>;
  /** A replica of `primary` now (asks the cluster). */
  replicaOf(primary: ClusterNode): Promise<ClusterNode>;
  /** The nodes that are primaries now (asks the cluster). */
  primaries(): Promise<ClusterNode[]>;
  /** Waits until every live node says `cluster_state:ok` and replicas are in sync. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes their dirs. */
  dispose(): Promise<void>;
}

export interface ClusterNode {
  port: number;
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Sends one command to this node alone (not through the cluster client). */
  command(...args: Array<string | number>): Promise<unknown>;
  /** SIGKILL (a crash: nothing is flushed). */
  kill(): Promise<void>;
  /** Starts the node again on its port and dir (it rejoins the cluster from nodes.conf). */
  restart(): Promise<void>;
  /** SIGSTOP: the process stays, its sockets stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  readonly running: boolean;
}

export interface RedisClusterOptions {
  /** @default 3 */
  primaries?: number;
  /** @default 1 */
  replicasPerPrimary?: number;
  /**
   * `cluster-node-timeout`: how long a node is unreachable before the others fail it
   * over. Short, so a killed primary's replica takes over within seconds.
   * @default 1000
   */
  nodeTimeoutMs?: number;
}

const START_ATTEMPTS = 3;

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  assertRedisInstalled();
  // A port picked free may be taken by someone else before redis-server binds it: the
  // whole start is tried again with new ports, a bounded number of times.
  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function startOnce(options: RedisClusterOptions): Promise<RedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicas = options.replicasPerPrimary ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const root = mkdtempSync(join(tmpdir(), 'resumable-cluster-'));
  const nodes: ProcessNode[] = [];
  try {
    for (let i = 0; i < primaries * (1 + replicas); i++) {
      const node = new ProcessNode(join(root, `node-${i}`), await freePort(), await freePort(), [
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        // A replica may take over however long it was cut off from its primary (a test
        // kills primaries and pauses nodes on purpose).
        '--cluster-replica-validity-factor',
        '0',
        // Replicas stay with the primary they were given.
        '--cluster-allow-replica-migration',
        'no',
        // A replica's first sync starts at once (the default waits 5 s for more replicas).
        '--repl-diskless-sync-delay',
        '0',
      ]);
      nodes.push(node);
      await node.start();
    }
    await createCluster(
      nodes.map((n) => n.address),
      replicas,
    );
    const cluster = new TestCluster(root, nodes);
    await cluster.waitHealthy(20_000);
    return cluster;
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** `redis-cli --cluster create`, bounded to 20 s. */
async function createCluster(addresses: string[], replicas: number): Promise<void> {
  const args = [
    '--cluster',
    'create',
    ...addresses,
    '--cluster-replicas',
    String(replicas),
    '--cluster-yes',
  ];
  const proc = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString();
  });
  proc.stderr.on('data', (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString();
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`redis-cli --cluster create exited ${code}:\n${output}`);
}

class ProcessNode implements ClusterNode {
  private child: ChildProcess | null = null;
  private admin: Redis | null = null;
  readonly address: string;

  constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly busPort: number,
    private readonly extra: string[],
  ) {
    this.address = `127.0.0.1:${port}`;
    mkdirSync(dir, { recursive: true });
  }

  get running(): boolean {
    const child = this.child;
    return child !== null && child.exitCode === null && child.signalCode === null;
  }

  async start(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(this.busPort),
      '--cluster-config-file',
      'nodes.conf',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--logfile',
      '',
      ...this.extra,
    ];
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = proc;
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    await waitForPort(this.port, proc, () => output);
  }

  async command(...args: Array<string | number>): Promise<unknown> {
    if (!this.admin) {
      this.admin = new Redis(this.port, '127.0.0.1', {
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => 100,
      });
      // A killed node's admin connection retries quietly until it is back.
      this.admin.on('error', () => {});
    }
    const admin = this.admin;
    if (admin.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`node ${this.address} is not ready`)),
          5000,
        );
        admin.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return admin.call(String(args[0]), ...args.slice(1).map(String));
  }

  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async restart(): Promise<void> {
    if (this.running) throw new Error(`node ${this.address} is running`);
    await this.start();
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    this.admin?.disconnect();
    this.admin = null;
    if (!this.running) return;
    // A paused node would never act on SIGTERM.
    this.resume();
    await this.signal('SIGKILL');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const proc = this.child;
    if (!proc || !this.running) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    await exited;
  }
}

class TestCluster implements RedisCluster {
  readonly seeds: string[];
  readonly url: string;

  constructor(
    private readonly root: string,
    readonly nodes: ProcessNode[],
  ) {
    this.seeds = nodes.map((n) => n.address);
    this.url = `redis+cluster://${this.seeds.join(',')}`;
  }

  async primaryOf(key: string): Promise<ClusterNode> {
    const slot = Number(await this.anyNode().command('CLUSTER', 'KEYSLOT', key));
    for (const row of await this.topology()) {
      if (row.role === 'master' && row.slots.some(([from, to]) => slot >= from && slot <= to)) {
        return this.byAddress(row.address);
      }
    }
    throw new Error(`no primary serves slot ${slot}`);
  }

  async replicaOf(primary: ClusterNode): Promise<ClusterNode> {
    const rows = await this.topology();
    const id = rows.find((row) => row.address === primary.address)?.id;
    const replica = rows.find((row) => row.role === 'slave' && row.primaryId === id);
    if (!replica) throw new Error(`${primary.address} has no replica`);
    return this.byAddress(replica.address);
  }

  async primaries(): Promise<ClusterNode[]> {
    const rows = await this.topology();
    return rows
      .filter((row) => row.role === 'master' && row.slots.length > 0)
      .map((row) => this.byAddress(row.address));
  }

  async waitHealthy(timeoutMs = 20_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    let why = '';
    while (Date.now() < until) {
      why = await this.unhealthy();
      if (why === '') return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the cluster is not healthy after ${timeoutMs} ms: ${why}`);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
    rmSync(this.root, { recursive: true, force: true });
  }

  /** '' when every running node is ok and in sync; else what is not yet. */
  private async unhealthy(): Promise<string> {
    const live = this.nodes.filter((n) => n.running);
    try {
      for (const node of live) {
        const info = String(await node.command('CLUSTER', 'INFO'));
        if (!info.includes('cluster_state:ok')) return `${node.address}: state not ok`;
        if (!info.includes('cluster_slots_ok:16384')) return `${node.address}: slots not ok`;
        const replication = String(await node.command('INFO', 'replication'));
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) {
          return `${node.address}: replica link down`;
        }
      }
      // A node stopped on purpose stays marked failing; the running ones must not be.
      const running = new Set(live.map((n) => n.address));
      const rows = await this.topology();
      const failing = rows.find((row) => running.has(row.address) && row.flags.includes('fail'));
      if (failing) return `${failing.address} is marked failing`;
      return '';
    } catch (error) {
      return String(error);
    }
  }

  private anyNode(): ProcessNode {
    const node = this.nodes.find((n) => n.running);
    if (!node) throw new Error('no node of the cluster is running');
    return node;
  }

  private byAddress(address: string): ProcessNode {
    const node = this.nodes.find((n) => n.address === address);
    if (!node) throw new Error(`no node at ${address}`);
    return node;
  }

  /** `CLUSTER NODES`, parsed, as a running node sees it. */
  private async topology(): Promise<TopologyRow[]> {
    const text = String(await this.anyNode().command('CLUSTER', 'NODES'));
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [id = '', address = '', flags = '', primaryId = '', , , , , ...slots] =
          line.split(' ');
        return {
          id,
          address: address.split('@')[0]!,
          flags,
          role: flags.includes('master') ? ('master' as const) : ('slave' as const),
          primaryId,
          slots: slots
            .filter((s) => !s.startsWith('['))
            .map((s) => {
              const [from, to] = s.split('-');
              return [Number(from), Number(to ?? from)] as [number, number];
            }),
        };
      });
  }
}

interface TopologyRow {
  id: string;
  address: string;
  flags: string;
  role: 'master' | 'slave';
  primaryId: string;
  slots: Array<[number, number]>;
}
