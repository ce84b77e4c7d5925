import type { Envelope } from '@resumable/protocol';
import { isTerminalStatus } from '@resumable/protocol';
import {
  DEFAULT_LEADER_STALE_MS,
  SNAPSHOT_EVERY_MS,
  TAB_BATCH_EVERY_MS,
  TAB_HEARTBEAT_MS,
} from '../base/defaults.js';
import type { StreamRole } from '../run/shared-stream.js';
import { LeaderElection, roleOf } from '../tabs/leader-election.js';
import { deliveredBy, LeaderWatch } from '../tabs/leader-watch.js';
import type { RunRef, TabShareMessage } from '../tabs/tab-messages.js';
import { chunkEnvelopes, parseTabShareMessage, post } from '../tabs/tab-messages.js';
import { TabRunPoint } from '../tabs/tab-run-point.js';
import { knownRun, threadGone } from './announced-runs.js';
import type { ConversationHost } from './host.js';
import type { ChatMessage } from './state.js';
import { placementOf, planThreadBatch } from './thread-events.js';
import { ThreadFollower } from './thread-follower.js';

/**
 * A conversation followed as a whole: the thread stream (runs started elsewhere — another
 * device, the server — are joined live) and, where the browser has Web Locks and
 * BroadcastChannel, one tab holding the streams for all tabs of the origin. The leader
 * posts what it folds (events with their offsets); a follower folds them itself, deduped by
 * offset like the network's, and resumes from its own offsets when it takes over.
 * Returns the stop.
 */
export function linkConversation(host: ConversationHost, share: boolean): () => void {
  const { run, store, options } = host;
  const env = run.env;
  const key = options.key;
  const tab = env.randomUUID();
  const follows = options.followThread !== false;
  const staleMs = options.leaderStaleMs ?? DEFAULT_LEADER_STALE_MS;
  const offs: (() => void)[] = [];
  let role: StreamRole = 'solo';
  let closed = false;
  let lastSnapshotAt = Number.NEGATIVE_INFINITY;
  /** The thread a deletion check (`threadGone`) runs for. */
  let checkingGone: string | null = null;
  const ownNetwork = () => role === 'solo' || role === 'leader';

  const channel = share ? env.channel(`resumable-tabs:${run.api.endpoint}:${key}`) : null;
  /**
   * The leader's run batches not posted yet (`TAB_BATCH_EVERY_MS`). Every other message
   * posts them first, so the tabs hear everything in the order it was folded (a `lead`
   * never names an offset its batches have not reached).
   */
  let held: { runId: string; envelopes: Envelope[]; timer: unknown } | null = null;
  /**
   * Another tab of this conversation has been heard on the channel. Until then the leader
   * posts no run batches: a tab that opens says `hello` once it follows (the leader's
   * answer says where the run is, and the follower reads what it lacks from the server),
   * and a tab that leads after another heard that one.
   */
  let othersHeard = false;
  const postHeld = () => {
    if (held === null || channel === null) return;
    const { runId, envelopes, timer } = held;
    held = null;
    env.clearTimeout(timer);
    for (const chunk of chunkEnvelopes(envelopes)) {
      post(channel, { v: 1, t: 'batch', tab, key, runId, envelopes: chunk });
    }
  };
  const hold = (runId: string, envelopes: Envelope[]) => {
    if (!othersHeard) return;
    if (held !== null && held.runId !== runId) postHeld();
    held ??= { runId, envelopes: [], timer: env.setTimeout(postHeld, TAB_BATCH_EVERY_MS) };
    for (const envelope of envelopes) held.envelopes.push(envelope);
    // The run's end is not kept waiting.
    if (isTerminalStatus(run.getState().status)) postHeld();
  };
  const send = (message: TabShareMessage) => {
    if (channel === null) return;
    postHeld();
    post(channel, message);
  };
  const runPoint = new TabRunPoint(run, options);

  const thread = new ThreadFollower({
    key,
    env,
    api: run.api,
    storage: run.storage,
    options,
    onEvents(envelopes) {
      const threadId = thread.threadId;
      if (role === 'leader' && threadId) {
        for (const chunk of chunkEnvelopes(envelopes)) {
          send({ v: 1, t: 'thread', tab, key, threadId, envelopes: chunk });
        }
      }
      act(envelopes);
    },
    onResync() {
      const { threadId, token } = store.getState();
      if (threadId) void host.rejoin(threadId, token);
      void host.reloadHistory();
    },
    warn: host.warn,
    canWrite: ownNetwork,
  });

  function act(envelopes: Envelope[]): void {
    const plan = planThreadBatch(envelopes, host.current());
    if (plan.deleted) {
      // The thread's streams close after this; its resume point means nothing any more.
      const end = () => {
        thread.forget();
        host.deleted();
      };
      const threadId = thread.threadId;
      if (ownNetwork()) end();
      // Another tab's word: ended once the server no longer knows the thread.
      else if (threadId && checkingGone !== threadId) {
        // One check per thread at a time, however many batches say it was deleted.
        checkingGone = threadId;
        const live = () => !closed && thread.threadId === threadId;
        void threadGone(run, threadId, thread.token, options.backoff, live)
          .then((gone) => gone && end())
          .finally(() => {
            if (checkingGone === threadId) checkingGone = null;
          });
      }
      return;
    }
    if (plan.reloadHistory) void host.reloadHistory();
    const threadId = thread.threadId;
    const next = plan.follow;
    if (!next || !threadId) return;
    const chat = store.getState();
    const { runId, prompt } = next;
    // What it shows before its snapshot: its prompt, where it hangs (an edit, a regenerate).
    const placed = placementOf(chat, next);
    const shown = placed ?? (prompt ? { prompt: { runId, message: prompt } } : {});
    const token = thread.token ?? chat.token;
    const heard = { runId, threadId, token, ended: next.ended === true, shown };
    // Another tab's thread batch names a run the server is asked about first.
    if (ownNetwork()) host.heard(heard);
    else
      void knownRun(run, runId, threadId, token, options.backoff).then(
        (k) => k && host.heard(heard),
      );
  }

  function current(): RunRef | null {
    const { runId, threadId } = run.getState();
    if (!runId || !threadId) return null;
    const { token, prompt } = store.getState();
    return { runId, threadId, token, prompt: prompt?.runId === runId ? prompt.message : null };
  }

  const announce = () => {
    if (role !== 'leader') return;
    send({ v: 1, t: 'lead', tab, key, run: current(), offset: run.getState().run.offset });
  };

  const syncThread = () => {
    if (!follows || closed) return;
    const { threadId, token, sending } = store.getState();
    thread.setThread(threadId, token);
    // A new thread's token comes with its first POST's answer, a moment after its id.
    if (token === null && sending !== null) return;
    if (ownNetwork()) thread.start();
  };

  function setRole(next: StreamRole): void {
    if (closed) return;
    const led = role === 'leader';
    role = next;
    run.shared.setRole(next);
    // The conversation machine opens the current run's stream for a new leader (not while
    // a join's snapshot loads: the join opens it).
    host.role(ownNetwork());
    if (ownNetwork()) {
      // The thread point a follower took from other tabs is not stored on takeover: only a
      // point the network confirmed is (the leader stored its own), so a bad tab's costs at
      // most one 409 in this tab, never one per reload.
      runPoint.cancel();
      syncThread();
      announce();
    } else {
      thread.stop();
    }
    if (next === 'follower') {
      // A leader that becomes a follower had its lock taken (`leader-watch.ts`: slowNotHung).
      watch.reset(led);
      send({ v: 1, t: 'hello', tab, key });
    }
  }

  function onMessage(raw: unknown): void {
    const m = parseTabShareMessage(raw, key, tab);
    if (m === null) return;
    othersHeard = true;
    if (m.t === 'hello' || m.t === 'sync') {
      leaderDuty(m);
      return;
    }
    watch.heard(m.tab, m.t === 'lead', deliveredBy(m));
    if (role !== 'follower' && role !== 'pending') return;
    switch (m.t) {
      case 'lead':
        // Only a run with its prompt: a run the leader just started gets its prompt a moment
        // later (announced again), and the thread stream names the others'.
        if (m.run?.prompt) {
          const ref = m.run;
          const token = ref.token ?? store.getState().token;
          const shown = { prompt: { runId: ref.runId, message: ref.prompt as ChatMessage } };
          // Heard once the server knows it: a read that failed (or was over `knownRun`'s
          // bound) is asked again at the leader's next `lead`; a run the chat follows
          // already, or moved past, changes nothing (the conversation machine).
          void knownRun(run, ref.runId, ref.threadId, token, options.backoff).then((known) => {
            if (!known) return;
            host.heard({ runId: ref.runId, threadId: ref.threadId, token, ended: false, shown });
          });
        }
        // The leader got ahead without a batch (it took a snapshot, or this tab joined late):
        // the server says where the run is.
        if (m.run) runPoint.doubt(m.run.runId, m.offset);
        return;
      case 'batch':
        // Folded only into the run the conversation follows (its queue says which).
        host.batch(m.runId, () => runPoint.offer(m.runId, m.envelopes));
        return;
      case 'thread':
        if (follows && thread.threadId === m.threadId) thread.applyShared(m.envelopes);
        return;
      case 'snapshot':
        // Another tab's folded run is never taken: it could move this tab's offset past what
        // the real leader posts. A gap is read from the server (`tab-run-point.ts`).
        return;
    }
  }

  function leaderDuty(m: Extract<TabShareMessage, { t: 'hello' | 'sync' }>): void {
    if (role !== 'leader') return;
    if (m.t === 'hello') {
      announce();
      return;
    }
    if (run.getState().runId !== m.runId || env.now() - lastSnapshotAt < SNAPSHOT_EVERY_MS) return;
    const snapshot = run.shared.snapshot();
    if (snapshot && snapshot.lastOffset > m.offset) {
      lastSnapshotAt = env.now();
      send({ v: 1, t: 'snapshot', tab, key, to: m.tab, snapshot });
    }
  }

  offs.push(
    store.subscribe((s, p) => {
      if (s.threadId !== p.threadId || s.token !== p.token || s.sending !== p.sending) {
        syncThread();
      }
      if (s.prompt !== p.prompt) announce();
    }),
    run.store.subscribe((s, p) => {
      if (s.runId !== p.runId) announce();
    }),
    run.shared.onBatch((runId, envelopes) => {
      if (ownNetwork()) runPoint.confirmOwn();
      if (role === 'leader') hold(runId, envelopes);
    }),
  );

  const election = new LeaderElection(
    channel ? env.locks : null,
    `resumable:${run.api.endpoint}:${key}`,
    (phase) => setRole(roleOf(phase)),
  );
  // The heartbeat can be made up by any tab: the server's run says whether the leader works.
  const watch = new LeaderWatch({
    env,
    backoff: options.backoff,
    staleMs,
    visible: () => env.visible.get(),
    point() {
      const p = run.shared.point;
      if (p !== null && !isTerminalStatus(run.getState().status)) {
        return { kind: 'run', id: p.runId, token: p.token, offset: p.offset };
      }
      // No live run: the thread stream, watched only while the user looks at this tab (a
      // quiet thread costs a read per staleMs and more, not one per tab in the background).
      const { threadId, token, offset } = thread;
      if (!follows || threadId === null || offset === null || !env.visible.get()) return null;
      return { kind: 'thread', id: threadId, token, offset };
    },
    serverOffset: (p) =>
      p.kind === 'run'
        ? run.api.getRun(p.id, p.token).then((s) => s.lastOffset)
        : thread.serverOffset().then((offset) => offset ?? 0),
    takeOver: () => election.dispatch('stale'),
  });
  if (channel) {
    offs.push(channel.subscribe(onMessage), () => channel.close());
    // A frozen page (or one in the back-forward cache) gives its lock up — a frozen leader
    // would hold the streams of every tab — and stands again when it comes back.
    offs.push(
      env.onFreeze((frozen) => election.dispatch(frozen ? 'freeze' : 'resume')),
      heartbeat(),
    );
  }
  syncThread();
  election.start();
  if (election.phase === 'solo') setRole('solo');

  /** The leader's heartbeat; a visible follower's watch over it. */
  function heartbeat(): () => void {
    let timer: unknown;
    const tick = () => {
      timer = env.setTimeout(tick, TAB_HEARTBEAT_MS);
      if (role === 'leader') announce();
      // Silence alone is not enough to steal: the watch asks the server first.
      else if (election.phase === 'follower') watch.tick();
    };
    timer = env.setTimeout(tick, TAB_HEARTBEAT_MS);
    return () => env.clearTimeout(timer);
  }

  return () => {
    postHeld();
    for (const off of offs.splice(0)) off();
    thread.stop();
    runPoint.cancel();
    closed = true;
    election.dispatch('close');
  };
}
