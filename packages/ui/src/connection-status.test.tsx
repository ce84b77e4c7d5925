import { ERROR_CODES, ResumableError } from '@resumable/protocol';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connection } from '../test/fixtures.js';
import { ConnectionStatus, connectionStatusText, errorText } from './connection-status.js';
import type { ConnectionPhase } from './controller-types.js';
import { DEFAULT_LABELS } from './labels.js';

const NOW = 1_700_000_000_000;

describe('connectionStatusText: the line for every ConnectionPhase', () => {
  const cases: Array<
    [ConnectionPhase, Parameters<typeof connection>[0], 'running' | 'idle', string | null]
  > = [
    ['idle', {}, 'idle', null],
    ['connecting', {}, 'running', null],
    ['connecting', { attempt: 2, nextRetryAt: null }, 'running', 'Reconnecting (attempt 2)…'],
    ['streaming', {}, 'running', null],
    [
      'reconnecting',
      { attempt: 3, nextRetryAt: NOW + 4200 },
      'running',
      'Reconnecting (attempt 3), next try in 5 s',
    ],
    ['reconnecting', { attempt: 1, nextRetryAt: null }, 'running', 'Reconnecting (attempt 1)…'],
    ['offline', {}, 'running', 'Offline — the answer keeps going on the server'],
    ['offline', {}, 'idle', 'You are offline'],
    ['finished', {}, 'idle', null],
    ['cancelled', {}, 'idle', null],
    ['error', {}, 'idle', null],
  ];
  for (const [phase, extra, status, expected] of cases) {
    it(`${phase} ${JSON.stringify(extra)} (${status}) → ${JSON.stringify(expected)}`, () => {
      expect(
        connectionStatusText(connection({ ...extra, phase }), status, DEFAULT_LABELS, NOW),
      ).toBe(expected);
    });
  }
});

describe('<ConnectionStatus>', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is quiet while all is well: an empty role="status" and no alert', () => {
    for (const phase of ['idle', 'connecting', 'streaming', 'finished', 'cancelled'] as const) {
      const { unmount } = render(
        <ConnectionStatus connection={connection({ phase })} status="running" />,
      );
      expect(screen.getByRole('status').textContent).toBe('');
      expect(screen.queryByRole('alert')).toBeNull();
      unmount();
    }
  });

  it('says "Live via another tab" in a follower tab while the reply streams, with no Retry', () => {
    const { rerender } = render(
      <ConnectionStatus
        connection={connection({ phase: 'streaming', viaTab: true })}
        status="running"
        onRetry={() => {}}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe('Live via another tab');
    expect(screen.queryByRole('button')).toBeNull();
    rerender(
      <ConnectionStatus
        connection={connection({ phase: 'finished', viaTab: true })}
        status="finished"
        labels={{ viaTab: 'Über einen anderen Tab' }}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe('');
    rerender(
      <ConnectionStatus
        connection={connection({ phase: 'streaming', viaTab: true })}
        status="running"
        labels={{ viaTab: 'Über einen anderen Tab' }}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe('Über einen anderen Tab');
  });

  it('counts down to the next reconnect attempt each second', () => {
    vi.useFakeTimers({ now: NOW });
    render(
      <ConnectionStatus
        connection={connection({ phase: 'reconnecting', attempt: 2, nextRetryAt: NOW + 3000 })}
        status="running"
        graceMs={0}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe(
      'Reconnecting (attempt 2), next try in 3 s',
    );
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByRole('status').textContent).toBe(
      'Reconnecting (attempt 2), next try in 2 s',
    );
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.getByRole('status').textContent).toBe(
      'Reconnecting (attempt 2), next try in 0 s',
    );
  });

  it('says the answer keeps going on the server while offline mid-reply', () => {
    render(
      <ConnectionStatus
        connection={connection({ phase: 'offline' })}
        status="running"
        graceMs={0}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe(
      'Offline — the answer keeps going on the server',
    );
  });

  it('waits out its grace period: a short reconnect (a healthy reload) shows nothing', () => {
    vi.useFakeTimers({ now: NOW });
    const reconnecting = connection({ phase: 'reconnecting', attempt: 1 });
    const { rerender } = render(<ConnectionStatus connection={reconnecting} status="running" />);
    act(() => {
      vi.advanceTimersByTime(999);
    });
    expect(screen.getByRole('status').textContent).toBe('');
    rerender(
      <ConnectionStatus
        connection={connection({ phase: 'streaming', resumes: 1, caughtUp: 42 })}
        status="running"
      />,
    );
    // Resumed without the user having been told of a problem: nothing to announce either.
    expect(screen.getByRole('status').textContent).toBe('');
    rerender(<ConnectionStatus connection={reconnecting} status="running" />);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByRole('status').textContent).toBe('Reconnecting (attempt 1)…');
  });

  it('says "can\'t reach the server" with a countdown and Retry now when the server is down', async () => {
    const retries: number[] = [];
    render(
      <ConnectionStatus
        connection={connection({
          phase: 'reconnecting',
          attempt: 2,
          nextRetryAt: Date.now() + 2500,
          lastError: new ResumableError('network', 'Failed to fetch'),
        })}
        status="running"
        graceMs={0}
        onRetry={() => retries.push(1)}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe(
      'Can’t reach the server — retrying in 3 sRetry now',
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry now' }));
    expect(retries).toEqual([1]);
  });

  it('back online after an offline spell: no "Reconnecting" flash, then "Reconnected — caught up n events"', () => {
    vi.useFakeTimers({ now: NOW });
    const at = (extra: Parameters<typeof connection>[0]) => (
      <ConnectionStatus connection={connection(extra)} status="running" onRetry={() => {}} />
    );
    const { rerender } = render(at({ phase: 'streaming', resumes: 0 }));
    rerender(at({ phase: 'offline', resumes: 0 }));
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.getByRole('status').textContent).toBe(
      'Offline — the answer keeps going on the server',
    );
    // Online: the client reconnects at once (attempt 1). Within the grace period that is
    // no news: the line goes quiet rather than say "Reconnecting (attempt 1)…".
    rerender(at({ phase: 'connecting', attempt: 1, resumes: 0 }));
    expect(screen.getByRole('status').textContent).toBe('');
    act(() => {
      vi.advanceTimersByTime(999);
    });
    expect(screen.getByRole('status').textContent).toBe('');
    rerender(at({ phase: 'streaming', attempt: 1, resumes: 1, caughtUp: 17 }));
    expect(screen.getByRole('status').textContent).toBe('Reconnected — caught up 17 events');
    // A reconnect that does take long is said, after its own grace period.
    rerender(at({ phase: 'offline', resumes: 1 }));
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    rerender(at({ phase: 'reconnecting', attempt: 1, resumes: 1 }));
    act(() => {
      vi.advanceTimersByTime(999);
    });
    expect(screen.getByRole('status').textContent).toBe('');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByRole('status').textContent).toBe('Reconnecting (attempt 1)…Retry now');
  });

  it('announces a resume with the number of events caught up, then goes quiet', () => {
    vi.useFakeTimers({ now: NOW });
    const { rerender } = render(
      <ConnectionStatus
        connection={connection({ phase: 'reconnecting', attempt: 1 })}
        status="running"
        graceMs={0}
      />,
    );
    rerender(
      <ConnectionStatus
        connection={connection({ phase: 'streaming', resumes: 1, caughtUp: 42 })}
        status="running"
        graceMs={0}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe('Reconnected — caught up 42 events');
    act(() => {
      vi.advanceTimersByTime(4000);
    });
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('shows a lost run (agent_lost) as an alert with Retry', async () => {
    const retries: number[] = [];
    render(
      <ConnectionStatus
        connection={connection({ phase: 'error' })}
        status="error"
        error={new ResumableError('agent_lost', 'worker died')}
        onRetry={() => retries.push(1)}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe(
      'The assistant stopped unexpectedly (run lost). The partial answer is kept.Retry',
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(retries).toEqual([1]);
  });

  it("shows the transport's last error when the connection failed", () => {
    render(
      <ConnectionStatus
        connection={connection({
          phase: 'error',
          lastError: new ResumableError('run_not_found', 'run r1 does not exist'),
        })}
        onRetry={() => {}}
      />,
    );
    expect(screen.getByRole('alert').textContent).toBe(
      'This conversation no longer exists on the server.Retry',
    );
    // The technical detail stays reachable as the notice's tooltip.
    expect(screen.getByRole('alert').firstElementChild!.getAttribute('title')).toBe(
      'run r1 does not exist',
    );
  });

  it('has plain words for every error code, and never shows the raw message', () => {
    for (const code of ERROR_CODES) {
      const text = errorText({ message: 'Failed to fetch', code }, DEFAULT_LABELS);
      expect(text, code).not.toContain('Failed to fetch');
      expect(text, code).not.toBe('Something went wrong.');
      expect(text, code).toMatch(/^[A-Z].*\.$/);
    }
    expect(errorText({ message: 'x', code: '__proto__' }, DEFAULT_LABELS)).toBe(
      'Something went wrong.',
    );
    expect(errorText({ message: 'x' }, DEFAULT_LABELS)).toBe('Something went wrong.');
  });

  it('takes its strings from labels', () => {
    render(
      <ConnectionStatus
        connection={connection({ phase: 'offline' })}
        status="running"
        graceMs={0}
        error={{ message: 'boom', code: 'internal' }}
        onRetry={() => {}}
        labels={{
          offline: (running) => (running ? 'Hors ligne, la réponse continue' : 'Hors ligne'),
          error: (message, code) => `Erreur ${code}: ${message}`,
          retry: 'Réessayer',
        }}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe('Hors ligne, la réponse continue');
    expect(screen.getByRole('alert').textContent).toBe('Erreur internal: boomRéessayer');
    expect(screen.getByRole('button', { name: 'Réessayer' })).toBeTruthy();
  });
});
