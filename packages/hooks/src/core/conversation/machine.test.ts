import { describe, expect, it } from 'vitest';
import {
  CONVERSATION_PHASES,
  type ConversationInput,
  type ConversationPhase,
  type ConversationState,
  type HeardRun,
  initialConversation,
  step,
} from './machine.js';

const run = (runId: string, more: Partial<HeardRun> = {}): HeardRun => ({
  runId,
  threadId: 't1',
  token: 'tok',
  ended: false,
  ...more,
});

const read = { ...initialConversation(), loaded: true };

/**
 * One state per phase (records read; r0 past, r1 the current run, r2 while joining), and
 * `unread`: idle before the records are read (what the chat is when it is first held).
 */
const STATES: Record<ConversationPhase | 'unread', ConversationState> = {
  unread: initialConversation(),
  idle: { ...read, phase: 'idle', run: 'r1', past: ['r0'] },
  joining: { ...read, phase: 'joining', run: 'r2', past: ['r0', 'r1'] },
  live: { ...read, phase: 'live', run: 'r1', past: ['r0'] },
  sending: { ...read, phase: 'sending', run: 'r1', sending: 's1', past: ['r0'] },
  deleted: { ...read, phase: 'deleted', run: 'r1', past: ['r0'] },
};

/** The inputs, each against any phase's state (`current`: that state's run). */
const INPUTS: Record<string, (s: ConversationState) => ConversationInput> = {
  'loaded none': () => ({ type: 'loaded', run: null }),
  'loaded going': () => ({ type: 'loaded', run: { runId: 'r1', ended: false } }),
  'loaded over': () => ({ type: 'loaded', run: { runId: 'r1', ended: true } }),
  held: () => ({ type: 'held' }),
  'heard current': (s) => ({ type: 'heard', run: run(s.run ?? 'r1') }),
  'heard new': () => ({ type: 'heard', run: run('r3') }),
  'heard new, over': () => ({ type: 'heard', run: run('r3', { ended: true }) }),
  'heard past (late)': () => ({ type: 'heard', run: run('r0') }),
  'heard new, stale read': () => ({ type: 'heard', run: run('r3', { basis: 'rX' }) }),
  'heard the POST’s run': () => ({ type: 'heard', run: run('s1') }),
  'heard an own queued run': () => ({ type: 'heard', run: run('r3', { own: true }) }),
  'joined current, going': (s) => ({ type: 'joined', runId: s.run ?? 'r1', ended: false }),
  'joined current, over': (s) => ({ type: 'joined', runId: s.run ?? 'r1', ended: true }),
  'joined another (late)': () => ({ type: 'joined', runId: 'r0', ended: false }),
  'ended current': (s) => ({ type: 'ended', runId: s.run ?? 'r1' }),
  'ended another (late)': () => ({ type: 'ended', runId: 'r0' }),
  'batch of the current run': (s) => ({ type: 'batch', runId: s.run ?? 'r1', batch: 'b' }),
  'batch of another run (late)': () => ({ type: 'batch', runId: 'r0', batch: 'b' }),
  page: () => ({ type: 'page', page: 'p' }),
  send: () => ({ type: 'send', runId: 's2' }),
  'accepted s1': () => ({ type: 'accepted', run: run('s1') }),
  'accepted another (late)': () => ({ type: 'accepted', run: run('s9') }),
  'refused s1, kept': () => ({ type: 'refused', runId: 's1', named: null, left: false }),
  'refused s1, left': () => ({ type: 'refused', runId: 's1', named: null, left: true }),
  'refused s1, named new': () => ({ type: 'refused', runId: 's1', named: run('r3'), left: true }),
  'refused s1, named current': (s) => ({
    type: 'refused',
    runId: 's1',
    named: run(s.run ?? 'r1'),
    left: true,
  }),
  'refused another (late)': () => ({ type: 'refused', runId: 's9', named: null, left: true }),
  'role: follower': () => ({ type: 'role', owns: false }),
  deleted: () => ({ type: 'deleted' }),
  reset: () => ({ type: 'reset' }),
};

/** `phase run [sending] | effects` after each input in each phase. */
const TABLE: Record<ConversationPhase | 'unread', Record<keyof typeof INPUTS, string>> = {
  unread: {
    'loaded none': 'idle - |',
    'loaded going': 'live r1 | open r1',
    'loaded over': 'idle r1 |',
    held: 'idle - |',
    'heard current': 'idle - |', // kept (waiting), heard once the records are read
    'heard new': 'idle - |',
    'heard new, over': 'idle - |',
    'heard past (late)': 'idle - |',
    'heard new, stale read': 'idle - |',
    'heard the POST’s run': 'idle - |',
    'heard an own queued run': 'idle - |',
    'joined current, going': 'idle - |',
    'joined current, over': 'idle - |',
    'joined another (late)': 'idle - |',
    'ended current': 'idle - |',
    'ended another (late)': 'idle - |',
    'batch of the current run': 'idle - |',
    'batch of another run (late)': 'idle - |',
    page: 'idle - | show',
    send: 'sending - s2 | settle, post s2', // a prompt goes out before the records are read
    'accepted s1': 'idle - |',
    'accepted another (late)': 'idle - |',
    'refused s1, kept': 'idle - |',
    'refused s1, left': 'idle - |',
    'refused s1, named new': 'idle - |',
    'refused s1, named current': 'idle - |',
    'refused another (late)': 'idle - |',
    'role: follower': 'idle - |',
    deleted: 'deleted - | end',
    reset: 'idle - |',
  },
  idle: {
    'loaded none': 'idle r1 |',
    'loaded going': 'idle r1 |',
    'loaded over': 'idle r1 |',
    held: 'idle r1 |',
    'heard current': 'idle r1 |',
    'heard new': 'joining r3 | settle, join r3',
    'heard new, over': 'joining r3 | settle, join r3 (over)',
    'heard past (late)': 'idle r1 |',
    'heard new, stale read': 'idle r1 |',
    'heard the POST’s run': 'joining s1 | settle, join s1',
    'heard an own queued run': 'idle r1 |',
    'joined current, going': 'idle r1 |',
    'joined current, over': 'idle r1 |',
    'joined another (late)': 'idle r1 |',
    'ended current': 'idle r1 |',
    'ended another (late)': 'idle r1 |',
    'batch of the current run': 'idle r1 | fold r1',
    'batch of another run (late)': 'idle r1 |',
    page: 'idle r1 | show',
    send: 'sending r1 s2 | settle, post s2',
    'accepted s1': 'idle r1 |',
    'accepted another (late)': 'idle r1 |',
    'refused s1, kept': 'idle r1 |',
    'refused s1, left': 'idle r1 |',
    'refused s1, named new': 'idle r1 |',
    'refused s1, named current': 'idle r1 |',
    'refused another (late)': 'idle r1 |',
    'role: follower': 'idle r1 |',
    deleted: 'deleted r1 | end',
    reset: 'idle - |',
  },
  joining: {
    'loaded none': 'joining r2 |',
    'loaded going': 'joining r2 |',
    'loaded over': 'joining r2 |',
    held: 'joining r2 |',
    'heard current': 'joining r2 |',
    'heard new': 'joining r3 | settle, join r3',
    'heard new, over': 'joining r3 | settle, join r3 (over)',
    'heard past (late)': 'joining r2 |',
    'heard new, stale read': 'joining r2 |',
    'heard the POST’s run': 'joining s1 | settle, join s1',
    'heard an own queued run': 'joining r2 |',
    'joined current, going': 'live r2 | open r2',
    'joined current, over': 'idle r2 | drain',
    'joined another (late)': 'joining r2 |',
    'ended current': 'joining r2 |', // its join says so
    'ended another (late)': 'joining r2 |',
    'batch of the current run': 'joining r2 | fold r2',
    'batch of another run (late)': 'joining r2 |',
    page: 'joining r2 | show',
    send: 'joining r2 |',
    'accepted s1': 'joining r2 |',
    'accepted another (late)': 'joining r2 |',
    'refused s1, kept': 'joining r2 |',
    'refused s1, left': 'joining r2 |',
    'refused s1, named new': 'joining r2 |',
    'refused s1, named current': 'joining r2 |',
    'refused another (late)': 'joining r2 |',
    'role: follower': 'joining r2 |',
    deleted: 'deleted r2 | end',
    reset: 'idle - |',
  },
  live: {
    'loaded none': 'live r1 |',
    'loaded going': 'live r1 |',
    'loaded over': 'live r1 |',
    held: 'live r1 | open r1',
    'heard current': 'live r1 |',
    'heard new': 'joining r3 | settle, join r3',
    'heard new, over': 'joining r3 | settle, join r3 (over)',
    'heard past (late)': 'live r1 |',
    'heard new, stale read': 'live r1 |',
    'heard the POST’s run': 'joining s1 | settle, join s1',
    'heard an own queued run': 'live r1 |',
    'joined current, going': 'live r1 |',
    'joined current, over': 'live r1 |',
    'joined another (late)': 'live r1 |',
    'ended current': 'idle r1 | drain',
    'ended another (late)': 'live r1 |',
    'batch of the current run': 'live r1 | fold r1',
    'batch of another run (late)': 'live r1 |',
    page: 'live r1 | show',
    send: 'live r1 |',
    'accepted s1': 'live r1 |',
    'accepted another (late)': 'live r1 |',
    'refused s1, kept': 'live r1 |',
    'refused s1, left': 'live r1 |',
    'refused s1, named new': 'live r1 |',
    'refused s1, named current': 'live r1 |',
    'refused another (late)': 'live r1 |',
    'role: follower': 'live r1 |',
    deleted: 'deleted r1 | end',
    reset: 'idle - |',
  },
  sending: {
    'loaded none': 'sending r1 s1 |',
    'loaded going': 'sending r1 s1 |',
    'loaded over': 'sending r1 s1 |',
    held: 'sending r1 s1 |',
    'heard current': 'sending r1 s1 |',
    'heard new': 'joining r3 s1 | settle, join r3',
    'heard new, over': 'joining r3 s1 | settle, join r3 (over)',
    'heard past (late)': 'sending r1 s1 |',
    'heard new, stale read': 'sending r1 s1 |',
    'heard the POST’s run': 'sending r1 s1 |',
    'heard an own queued run': 'sending r1 s1 |',
    'joined current, going': 'sending r1 s1 |',
    'joined current, over': 'sending r1 s1 |',
    'joined another (late)': 'sending r1 s1 |',
    'ended current': 'sending r1 s1 |',
    'ended another (late)': 'sending r1 s1 |',
    'batch of the current run': 'sending r1 s1 | fold r1',
    'batch of another run (late)': 'sending r1 s1 |',
    page: 'sending r1 s1 | show',
    send: 'sending r1 s1 |',
    'accepted s1': 'live s1 | own s1',
    'accepted another (late)': 'sending r1 s1 |',
    'refused s1, kept': 'idle r1 |',
    'refused s1, left': 'idle r1 | drain',
    'refused s1, named new': 'joining r3 | settle, join r3',
    'refused s1, named current': 'idle r1 | drain',
    'refused another (late)': 'sending r1 s1 |',
    'role: follower': 'sending r1 s1 |',
    deleted: 'deleted r1 | end',
    reset: 'idle - |',
  },
  deleted: Object.fromEntries(
    Object.keys(INPUTS).map((name) => [name, name === 'reset' ? 'idle - |' : 'deleted r1 |']),
  ) as Record<keyof typeof INPUTS, string>,
};

function describeStep(state: ConversationState, input: ConversationInput): string {
  const next = step(state, input);
  const s = next.state;
  const effects = next.effects.map((e) =>
    e.type === 'join' || e.type === 'own'
      ? `${e.type} ${e.run.runId}${e.run.ended ? ' (over)' : ''}`
      : 'runId' in e
        ? `${e.type} ${e.runId}`
        : e.type,
  );
  const sending = s.sending === null ? '' : ` ${s.sending}`;
  return `${s.phase} ${s.run ?? '-'}${sending} |${effects.length ? ` ${effects.join(', ')}` : ''}`;
}

describe('the conversation machine, as a table: every (phase, input) pair', () => {
  for (const phase of ['unread' as const, ...CONVERSATION_PHASES]) {
    it(phase, () => {
      const state = STATES[phase];
      const got = Object.fromEntries(
        Object.entries(INPUTS).map(([name, input]) => [name, describeStep(state, input(state))]),
      );
      expect(got).toEqual(TABLE[phase]);
    });
  }
});

/** Runs `inputs` from `state`; every effect, in order, as the table writes them. */
function run_(state: ConversationState, inputs: ConversationInput[]) {
  const effects: string[] = [];
  let s = state;
  for (const input of inputs) {
    const next = step(s, input);
    s = next.state;
    for (const e of next.effects) {
      effects.push(
        e.type === 'join' || e.type === 'own'
          ? `${e.type} ${e.run.runId}${e.run.ended ? ' (over)' : ''}`
          : 'runId' in e
            ? `${e.type} ${e.runId}`
            : e.type,
      );
    }
  }
  return { state: s, effects };
}

describe('late and out-of-order inputs (#25)', () => {
  it('a run announced with its end (another device answered): current, folded from its log, never left behind the older run', () => {
    const { state, effects } = run_(STATES.idle, [
      { type: 'heard', run: run('r2', { ended: true }) },
      { type: 'joined', runId: 'r2', ended: true },
    ]);
    expect(effects).toEqual(['settle', 'join r2 (over)', 'drain']);
    expect([state.phase, state.run, state.past]).toEqual(['idle', 'r2', ['r0', 'r1']]);
  });

  it('a snapshot join and announcements of the same run converge on one join, one stream opened after it', () => {
    const { state, effects } = run_(STATES.idle, [
      { type: 'heard', run: run('r3') }, // the active-run read
      { type: 'heard', run: run('r3') }, // the thread stream
      { type: 'role', owns: false },
      { type: 'role', owns: true }, // the election ends while the snapshot loads
      { type: 'heard', run: run('r3') }, // another tab
      { type: 'joined', runId: 'r3', ended: false },
      { type: 'heard', run: run('r3') },
    ]);
    expect(effects).toEqual(['settle', 'join r3', 'open r3']);
    expect([state.phase, state.run]).toEqual(['live', 'r3']);
  });

  it('heard before the records are read: kept, and acted on against the run they hold', () => {
    const same = run_(STATES.unread, [
      { type: 'heard', run: run('r1') },
      { type: 'loaded', run: { runId: 'r1', ended: false } },
    ]);
    // The stored run itself: resumed from its stored offset, not joined again.
    expect(same.effects).toEqual(['open r1']);
    const newer = run_(STATES.unread, [
      { type: 'heard', run: run('r1') },
      { type: 'heard', run: run('r2', { ended: true }) },
      { type: 'loaded', run: { runId: 'r1', ended: true } },
    ]);
    expect(newer.effects).toEqual(['settle', 'join r2 (over)']);
    expect(newer.state.past).toEqual(['r1']);
  });

  it('the loser of two answers: the winner heard while its POST is out, then its 409 names the winner — nothing more to do, no error', () => {
    const { state, effects } = run_(STATES.idle, [
      { type: 'send', runId: 's1' },
      { type: 'heard', run: run('w') },
      { type: 'joined', runId: 'w', ended: false },
      { type: 'refused', runId: 's1', named: run('w'), left: true },
      { type: 'ended', runId: 'w' },
    ]);
    expect(effects).toEqual(['settle', 'post s1', 'settle', 'join w', 'open w', 'drain']);
    expect([state.phase, state.run, state.sending]).toEqual(['idle', 'w', null]);
  });

  it('the winner heard before the loser’s 409 names it, or after: the same state', () => {
    const first = run_(STATES.idle, [
      { type: 'send', runId: 's1' },
      { type: 'refused', runId: 's1', named: run('w'), left: true },
      { type: 'heard', run: run('w') },
      { type: 'joined', runId: 'w', ended: true },
    ]);
    expect(first.effects).toEqual(['settle', 'post s1', 'settle', 'join w', 'drain']);
    expect([first.state.phase, first.state.run]).toEqual(['idle', 'w']);
  });

  it('a POST accepted while another run was joined meanwhile: its run is the newest', () => {
    const { state, effects } = run_(STATES.idle, [
      { type: 'send', runId: 's1' },
      { type: 'heard', run: run('r3') },
      { type: 'accepted', run: run('s1') },
      { type: 'joined', runId: 'r3', ended: true }, // late: dropped
    ]);
    expect(effects).toEqual(['settle', 'post s1', 'settle', 'join r3', 'settle', 'own s1']);
    expect([state.phase, state.run, state.past]).toEqual(['live', 's1', ['r0', 'r1', 'r3']]);
  });

  it('a late word of a run moved past, or from a read begun before the run changed, moves nothing', () => {
    const { state, effects } = run_(STATES.live, [
      { type: 'heard', run: run('r4') },
      { type: 'heard', run: run('r1') }, // the run it left, announced again (a replay)
      { type: 'heard', run: run('r5', { basis: 'r1' }) }, // an active-run read begun before r4
    ]);
    expect(effects).toEqual(['settle', 'join r4']);
    expect([state.phase, state.run]).toEqual(['joining', 'r4']);
  });

  it('past runs are bounded', () => {
    let state: ConversationState = STATES.idle;
    for (let i = 0; i < 100; i++) {
      state = step(state, { type: 'heard', run: run(`n${i}`) }).state;
    }
    expect(state.past).toHaveLength(32);
    expect(state.past.at(-1)).toBe('n98');
  });
});
