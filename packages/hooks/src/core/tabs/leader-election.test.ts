import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/util.js';
import { LockManagerStandIn } from '../../../test/web-locks.js';
import type { LeaderEvent, LeaderPhase } from './leader-election.js';
import { LeaderElection, leaderTransition, roleOf } from './leader-election.js';

describe('leaderTransition (the one transition function)', () => {
  const cases: [LeaderPhase, LeaderEvent, LeaderPhase][] = [
    ['solo', 'start', 'electing'],
    ['solo', 'unsupported', 'solo'],
    ['electing', 'granted', 'leader'],
    ['electing', 'busy', 'follower'],
    ['follower', 'granted', 'leader'],
    ['follower', 'busy', 'follower'],
    ['leader', 'lost', 'follower'],
    ['leader', 'busy', 'leader'],
    ['leader', 'stale', 'leader'],
    ['follower', 'stale', 'stealing'],
    ['stealing', 'granted', 'leader'],
    ['leader', 'freeze', 'frozen'],
    ['follower', 'freeze', 'frozen'],
    ['frozen', 'granted', 'frozen'],
    ['frozen', 'resume', 'electing'],
    ['leader', 'resume', 'leader'],
    ['leader', 'close', 'closed'],
    ['closed', 'start', 'closed'],
    ['closed', 'granted', 'closed'],
  ];
  it.each(cases)('%s + %s → %s', (phase, event, next) => {
    expect(leaderTransition(phase, event)).toBe(next);
  });

  it('roles: only a leader or a lone tab opens streams', () => {
    const phases: LeaderPhase[] = [
      'solo',
      'electing',
      'stealing',
      'leader',
      'follower',
      'frozen',
      'closed',
    ];
    expect(phases.map(roleOf)).toEqual([
      'solo',
      'pending',
      'pending',
      'leader',
      'follower',
      'pending',
      'solo',
    ]);
  });
});

describe('LeaderElection over Web Locks (in-process stand-in)', () => {
  function tabs(n: number) {
    const manager = new LockManagerStandIn();
    return Array.from({ length: n }, () => {
      const locks = manager.client();
      const seen: LeaderPhase[] = [];
      const election = new LeaderElection(locks, 'resumable:/api:k', (phase) => seen.push(phase));
      return { locks, election, seen };
    });
  }

  it('one leader; when it dies the first queued tab leads, from a lock grant', async () => {
    const [a, b, c] = tabs(3);
    a!.election.start();
    await waitFor(() => a!.election.phase === 'leader', 'a leads');
    b!.election.start();
    c!.election.start();
    await waitFor(() => c!.election.phase === 'follower', 'c follows');
    expect([a!.election.phase, b!.election.phase]).toEqual(['leader', 'follower']);
    expect(b!.seen).toEqual(['electing', 'follower']);
    const died = Date.now();
    a!.locks.kill();
    await waitFor(() => b!.election.phase === 'leader', 'b leads', 1000);
    expect(Date.now() - died).toBeLessThan(1000);
    expect(c!.election.phase).toBe('follower');
    expect(b!.seen).toEqual(['electing', 'follower', 'leader']);
  });

  it('a stale leader is stolen from; it learns it lost the lock and follows', async () => {
    const [a, b] = tabs(2);
    a!.election.start();
    await waitFor(() => a!.election.phase === 'leader', 'a leads');
    b!.election.start();
    await waitFor(() => b!.election.phase === 'follower', 'b follows');
    b!.election.dispatch('stale');
    await waitFor(() => b!.election.phase === 'leader', 'b stole the lock');
    await waitFor(() => a!.election.phase === 'follower', 'a follows');
    expect(a!.seen).toEqual(['electing', 'leader', 'follower']);
    // a queued again: b closing hands the lock back.
    b!.election.dispatch('close');
    await waitFor(() => a!.election.phase === 'leader', 'a leads again');
  });

  it('a frozen leader lets go; back, it queues behind the new leader', async () => {
    const [a, b] = tabs(2);
    a!.election.start();
    await waitFor(() => a!.election.phase === 'leader', 'a leads');
    b!.election.start();
    await waitFor(() => b!.election.phase === 'follower', 'b follows');
    a!.election.dispatch('freeze');
    expect(a!.election.phase).toBe('frozen');
    await waitFor(() => b!.election.phase === 'leader', 'b leads');
    a!.election.dispatch('resume');
    await waitFor(() => a!.election.phase === 'follower', 'a follows');
    expect(a!.seen).toEqual(['electing', 'leader', 'frozen', 'electing', 'follower']);
  });

  it('without Web Locks it stays solo', () => {
    const seen: LeaderPhase[] = [];
    const election = new LeaderElection(null, 'x', (phase) => seen.push(phase));
    election.start();
    expect(election.phase).toBe('solo');
    expect(seen).toEqual([]);
  });
});
