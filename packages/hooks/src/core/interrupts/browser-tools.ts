import { ID_PATTERN, ResumableError } from '@resumable/protocol';
import type { ChatInterrupt } from './chat-interrupts.js';
import { interruptRecordKey, parseInterruptRecord } from './interrupt-record.js';
import type { InterruptSession } from './interrupt-session.js';
import type { BrowserTool, BrowserTools } from './tool-declarations.js';

export type { BrowserTool, BrowserTools } from './tool-declarations.js';

/** The part of the Web Locks API used here (`navigator.locks`). */
export interface LockManagerLike {
  /**
   * Runs `callback` holding lock `name`; with `ifAvailable`, at once with a null lock when
   * another tab holds it (that tab runs the tool).
   */
  request(
    name: string,
    options: { ifAvailable: boolean },
    callback: (lock: unknown) => Promise<void>,
  ): Promise<void>;
}

function browserLocks(): LockManagerLike | null {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/**
 * Runs browser tools when their interrupt is open, at most once per interrupt: one tab
 * (a Web Lock named per interrupt, where the browser has them) after `started` is
 * persisted. A reload in the middle leaves `started` without an answer: an idempotent tool
 * runs again, any other is marked `interrupted` for the user to decide.
 */
export class BrowserToolRunner {
  private tools: BrowserTools = {};
  /** Interrupts this page already took up (never twice in one page). */
  private readonly taken = new Set<string>();
  /** Interrupts this page's tools answered: open again with no answer, the answer was dropped. */
  private readonly answered = new Set<string>();
  private off: (() => void) | null = null;

  constructor(
    private readonly session: InterruptSession,
    private readonly locks: LockManagerLike | null = browserLocks(),
  ) {}

  /** The page's tools now (`useResumableChat`'s `tools`): open interrupts for them are run. */
  setTools(tools: BrowserTools): void {
    this.tools = tools;
    this.consider();
  }

  /**
   * Runs tools for the session's open `client_tool` interrupts, now and as they come;
   * returns the matching stop (a tool already running finishes).
   */
  start(): () => void {
    this.off ??= this.session.store.subscribe(() => this.consider());
    this.consider();
    return () => {
      this.off?.();
      this.off = null;
    };
  }

  /**
   * The app's tool the interrupt names. The name is the server's (the model's): data, never
   * a key into the prototype (`constructor` is no tool the app declared).
   */
  private toolOf(i: ChatInterrupt | undefined): BrowserTool | undefined {
    const name = i?.tool?.name;
    return name !== undefined && Object.hasOwn(this.tools, name) ? this.tools[name] : undefined;
  }

  /** Runs an `interrupted` tool again, because the user asked. */
  rerun(id: string): Promise<void> {
    const i = this.session.getState().interrupts.find((x) => x.id === id);
    const tool = this.toolOf(i);
    if (!i || !tool || i.execution !== 'interrupted') return Promise.resolve();
    return this.exclusive(i, () => this.run(i, tool));
  }

  private consider(): void {
    if (!this.session.getState().hydrated) return;
    for (const i of this.session.getState().interrupts) {
      if (i.reason !== 'client_tool' || i.status !== 'open' || i.pending !== null) continue;
      const tool = this.toolOf(i);
      if (!tool) continue;
      // Its answer was dropped (a refused continuation; its mark is back to `started`): the
      // user decides (`rerun`). Run again at once, a refusal would loop with no delay.
      if (this.answered.delete(i.id)) this.session.setExecution(i.id, 'interrupted');
      if (this.taken.has(i.id)) continue;
      this.taken.add(i.id);
      // An answer the server refuses even as an error (an interrupt id it refuses) is said.
      void this.exclusive(i, async () => {
        const stored = await this.session.chat.run.storage.get(
          interruptRecordKey(this.session.chat.run.key),
        );
        const mark = parseInterruptRecord(stored, this.session.chat.run.key).tools.find(
          (t) => t.interruptId === i.id,
        );
        if (mark?.state === 'done') return; // answered already: its continuation follows
        if (mark?.state === 'started' && !tool.idempotent) {
          this.session.setExecution(i.id, 'interrupted');
          return;
        }
        await this.run(i, tool);
      }).catch((error: unknown) => this.session.warn(error));
    }
  }

  /** `task` in this tab only: under the interrupt's Web Lock when there are locks. */
  private async exclusive(i: ChatInterrupt, task: () => Promise<void>): Promise<void> {
    if (!this.locks) return task();
    await this.locks.request(`resumable-tool:${i.id}`, { ifAvailable: true }, async (lock) => {
      // Held by another tab: that tab runs it, and its answer's continuation reaches us.
      if (lock) await task();
    });
  }

  private async run(i: ChatInterrupt, tool: BrowserTool): Promise<void> {
    await this.session.markTool(i.id, 'started');
    this.session.setExecution(i.id, 'running');
    let payload: { result: unknown } | { error: string };
    try {
      const args = JSON.parse(i.tool?.arguments || '{}') as never;
      payload = { result: (await tool.execute(args)) ?? null };
    } catch (error) {
      payload = { error: (error instanceof Error ? error.message : String(error)).slice(0, 2000) };
    }
    this.session.setExecution(i.id, null);
    // Checked once, where every answer enters (`resolve`). A result the server would refuse
    // (over 16 KiB of UTF-8 JSON, too deep, not JSON) goes as an error in its place: the
    // agent hears why instead of the answer being refused for good. Decided by the entry's
    // facts, not its message: one `resolved` entry with an id the wire takes can only be
    // refused for its payload; anything else (an id it refuses) is said.
    await this.session.resolve(i.id, payload).catch((problem: unknown) => {
      if (
        !(problem instanceof ResumableError) ||
        problem.code !== 'bad_request' ||
        !ID_PATTERN.test(i.id)
      )
        throw problem;
      const why = problem.message.replace('resume[0].payload ', 'the result ');
      return this.session.resolve(i.id, { error: why.slice(0, 500) });
    });
    await this.session.markTool(i.id, 'done');
    this.answered.add(i.id);
    // The refusal can come back before `resolve` does: its drop found no `done` to set back.
    if (!this.session.getState().record.answers.some((a) => a.interruptId === i.id))
      await this.session.markTool(i.id, 'started');
  }
}

const runners = new WeakMap<InterruptSession, BrowserToolRunner>();

/** The page's one tool runner for an interrupt session. */
export function browserToolRunnerOf(session: InterruptSession): BrowserToolRunner {
  let runner = runners.get(session);
  if (!runner) {
    runner = new BrowserToolRunner(session);
    runners.set(session, runner);
  }
  return runner;
}
