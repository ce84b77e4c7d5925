/**
 * `pnpm bench ui`: what drawing a long streamed answer costs the page, in real Chromium.
 *
 * The drop-in `<ResumableChat>` (production build, bench/ui-page) streams a 20,000-character
 * showcase answer (headings, lists, tables, code, quotes; bench/lib/showcase-answer.ts) at
 * 100 tokens a second with the CPU throttled 4× (CDP `Emulation.setCPUThrottlingRate`, a
 * mid-range phone). Beside it, in the same run and on the same page, the same stream with
 * the assistant's Markdown drawn by `streamdown` (the streaming renderer of the AI SDK's AI
 * Elements) and by `react-markdown` + `remark-gfm` re-rendered on every token (what most
 * apps do); the hooks, transport, transcript and composer are the kit's for all three.
 *
 * Figures, per renderer:
 * - scripting ms per second of the stream (CDP `Performance.getMetrics` ScriptDuration
 *   deltas) over the 2,000 characters up to 3k, 10k and 20k characters: flat means a
 *   token costs the same late in the answer as early;
 * - long tasks (a `longtask` PerformanceObserver injected before the page's scripts) from
 *   the send to the answer's end;
 * - frame intervals (a requestAnimationFrame loop, injected too, for every renderer alike).
 *
 * Goals (issue #27): scripting/s at 20k within 1.3× of at 3k; no long task over 50 ms; at
 * most half of streamdown's scripting time.
 *
 * One stream's scripting moves by ±15% from run to run on this machine (streamdown's from 9.6
 * to 12.0 s in six runs in a row), so each renderer streams `ROUNDS` times, the renderers in
 * turn each round, and its row is its run of median scripting; every run's scripting and
 * long tasks are in the row too.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { CDPSession } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM_LAUNCH, requireChromium } from '../packages/ui/scripts/chromium.js';
import { quickOr, writeResults } from './lib/results.js';
import { showcaseAnswer } from './lib/showcase-answer.js';
import { pacedAgent, serveBenchSite } from './lib/ui-page.js';

const CHARS = quickOr(20_000, 4_000);
const TOKENS_PER_SECOND = quickOr(100, 200);
const CPU_THROTTLE = 4;
/** Where scripting per second is read: each over the 2,000 characters up to it. */
const MARKS = quickOr([3_000, 10_000, 20_000], [3_000, 4_000]);
const WINDOW_CHARS = quickOr(2_000, 1_000);
const SAMPLE_MS = 250;
/** Streams per renderer (`BENCH_UI_ROUNDS`), in turn: a row is its run of median scripting. */
const ROUNDS = Number(process.env.BENCH_UI_ROUNDS ?? quickOr(3, 1));
const ALL_RENDERERS = ['resumable', 'streamdown', 'react-markdown', 'plain'] as const;
type Renderer = (typeof ALL_RENDERERS)[number];
/**
 * `BENCH_UI_PROFILE=<folder>` also records a CPU profile of each renderer's stream (CDP
 * `Profiler`, throttled as measured) into `<folder>/<renderer>.cpuprofile`, from a build left
 * unminified so the functions keep their names; open it in Chrome DevTools or rank it with
 * `node bench/lib/rank-profile.ts`. Its figures are not written (sampling and the unminified
 * build change them).
 */
const PROFILE_DIR = process.env.BENCH_UI_PROFILE;
/** `BENCH_UI_RENDERERS=resumable,plain` runs only those (while working on one). */
const RENDERERS = ALL_RENDERERS.filter(
  (name) =>
    !process.env.BENCH_UI_RENDERERS || process.env.BENCH_UI_RENDERERS.split(',').includes(name),
);

interface Sample {
  /** ms since the prompt was sent. */
  t: number;
  /** Characters of the answer on the page. */
  chars: number;
  /** CDP's cumulative durations, in ms. */
  script: number;
  layout: number;
  style: number;
}

interface RendererFigures {
  renderer: Renderer;
  streamSeconds: number;
  scriptingMsPerSecond: Record<string, number>;
  /** scripting/s at the last mark over at the first. */
  flatness: number;
  wholeStream: {
    scriptingMs: number;
    scriptingMsPerSecond: number;
    layoutMs: number;
    styleMs: number;
  };
  longTasks: { count: number; totalMs: number; maxMs: number; over50Ms: number };
  frames: { count: number; fps: number; p50Ms: number; p95Ms: number; maxMs: number };
  textEqual: boolean;
}

/** A renderer's row: its run of median scripting, and what every run measured. */
interface RendererRow extends RendererFigures {
  runs: { scriptingMs: number; longTasksOver50Ms: number; flatness: number; textEqual: boolean }[];
}

const answer = showcaseAnswer(CHARS);

/**
 * Injected before the page's own scripts: long tasks from the start, and frame times once
 * `__bench.recording` is set. A string, not a function: tsx wraps named functions in a
 * `__name()` helper the page does not have.
 */
const RECORDERS = `
  const bench = { recording: false, longTasks: [], frames: [] };
  window.__bench = bench;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      bench.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  requestAnimationFrame(function frame(time) {
    if (bench.recording) bench.frames.push(time);
    requestAnimationFrame(frame);
  });
`;

/** The answer's state on the page: its characters and whether it has ended. */
const readAnswer = () => {
  const text = document.querySelector('[data-role="assistant"] [data-part="text"]');
  const message = text?.closest('[data-message-id]');
  return {
    text: text?.getAttribute('data-text') ?? '',
    ended:
      message !== null && message !== undefined && !message.matches('[data-status="streaming"]'),
  };
};

async function metrics(cdp: CDPSession): Promise<Omit<Sample, 't' | 'chars'>> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as {
    metrics: { name: string; value: number }[];
  };
  const of = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
  return {
    script: of('ScriptDuration'),
    layout: of('LayoutDuration'),
    style: of('RecalcStyleDuration'),
  };
}

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

/** Scripting ms per second over the `WINDOW_CHARS` characters up to `mark`. */
function scriptingAt(samples: Sample[], mark: number): number {
  const from = samples.find((s) => s.chars >= mark - WINDOW_CHARS);
  const to = samples.find((s) => s.chars >= mark);
  if (!from || !to || to.t <= from.t) throw new Error(`no samples around ${mark} characters`);
  return (to.script - from.script) / ((to.t - from.t) / 1000);
}

async function streamOnce(renderer: Renderer, url: string): Promise<RendererFigures> {
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript({ content: RECORDERS });
    const page = await context.newPage();
    await page.goto(`${url}?renderer=${renderer}`);
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.waitFor({ timeout: 30_000 });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_THROTTLE });
    if (PROFILE_DIR) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    }
    await input.fill('Explain how this chat survives everything a network does.');
    await page.waitForTimeout(500);
    const sentAt = await page.evaluate(() => {
      (window as unknown as { __bench: { recording: boolean } }).__bench.recording = true;
      return performance.now();
    });
    if (PROFILE_DIR) await cdp.send('Profiler.start');
    const start = Date.now();
    await input.press('Enter');
    const samples: Sample[] = [];
    let text = '';
    for (;;) {
      const [state, cost] = await Promise.all([page.evaluate(readAnswer), metrics(cdp)]);
      text = state.text;
      samples.push({ t: Date.now() - start, chars: text.length, ...cost });
      if (state.ended && text.length > 0) break;
      if (Date.now() - start > 600_000)
        throw new Error(`${renderer}: the answer did not end in 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
    if (PROFILE_DIR) {
      const { profile } = (await cdp.send('Profiler.stop')) as {
        profile: { nodes: { callFrame: { url: string } }[] };
      };
      mkdirSync(join(PROFILE_DIR, 'scripts'), { recursive: true });
      writeFileSync(join(PROFILE_DIR, `${renderer}.cpuprofile`), JSON.stringify(profile));
      // The page's source maps beside it: they say which module each function is from.
      const urls = new Set(profile.nodes.map((node) => node.callFrame.url));
      for (const script of [...urls].filter((u) => u.startsWith(url) && u.endsWith('.js'))) {
        const map = await page.evaluate((u) => fetch(`${u}.map`).then((r) => r.text()), script);
        const name = `${script.slice(url.length).replace(/\//g, '_')}.map`;
        writeFileSync(join(PROFILE_DIR, 'scripts', name), map);
      }
    }
    const recorded = await page.evaluate(
      () =>
        (
          window as unknown as {
            __bench: { longTasks: { start: number; duration: number }[]; frames: number[] };
          }
        ).__bench,
    );
    const endedAt = await page.evaluate(() => performance.now());
    const tasks = recorded.longTasks.filter((task) => task.start >= sentAt);
    const intervals = recorded.frames.slice(1).map((time, i) => time - recorded.frames[i]!);
    const sorted = [...intervals].sort((a, b) => a - b);
    const first = samples[0]!;
    const last = samples[samples.length - 1]!;
    const streamSeconds = last.t / 1000;
    const at = Object.fromEntries(
      MARKS.map((mark) => [String(mark), round(scriptingAt(samples, mark))]),
    );
    return {
      renderer,
      streamSeconds: round(streamSeconds),
      scriptingMsPerSecond: at,
      flatness: round(at[String(MARKS[MARKS.length - 1])]! / at[String(MARKS[0])]!, 2),
      wholeStream: {
        scriptingMs: round(last.script - first.script, 0),
        scriptingMsPerSecond: round((last.script - first.script) / streamSeconds),
        layoutMs: round(last.layout - first.layout, 0),
        styleMs: round(last.style - first.style, 0),
      },
      longTasks: {
        count: tasks.length,
        totalMs: round(
          tasks.reduce((sum, task) => sum + task.duration, 0),
          0,
        ),
        maxMs: round(Math.max(0, ...tasks.map((task) => task.duration)), 0),
        over50Ms: tasks.filter((task) => task.duration > 50).length,
      },
      frames: {
        count: intervals.length,
        fps: round(intervals.length / ((endedAt - sentAt) / 1000)),
        p50Ms: round(percentile(sorted, 0.5)),
        p95Ms: round(percentile(sorted, 0.95)),
        maxMs: round(sorted[sorted.length - 1] ?? 0),
      },
      textEqual: text === answer,
    };
  } finally {
    await browser.close();
  }
}

requireChromium();
const site = await serveBenchSite(pacedAgent(answer, TOKENS_PER_SECOND), {
  minify: !PROFILE_DIR,
});
const runs = new Map<Renderer, RendererFigures[]>(RENDERERS.map((renderer) => [renderer, []]));
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const renderer of RENDERERS) {
      console.log(
        `round ${round}/${ROUNDS}: streaming ${answer.length} characters into ${renderer}…`,
      );
      runs.get(renderer)!.push(await streamOnce(renderer, site.url));
    }
  }
} finally {
  await site.close();
}
const rows: RendererRow[] = RENDERERS.map((renderer) => {
  const all = runs.get(renderer)!;
  const byScripting = [...all].sort(
    (a, b) => a.wholeStream.scriptingMs - b.wholeStream.scriptingMs,
  );
  return {
    ...byScripting[Math.floor((byScripting.length - 1) / 2)]!,
    runs: all.map((run) => ({
      scriptingMs: run.wholeStream.scriptingMs,
      longTasksOver50Ms: run.longTasks.over50Ms,
      flatness: run.flatness,
      textEqual: run.textEqual,
    })),
    // Every run drew the whole answer, not only the median one.
    textEqual: all.every((run) => run.textEqual),
  };
});

console.table(
  rows.map((row) => ({
    renderer: row.renderer,
    ...Object.fromEntries(
      MARKS.map((mark) => [`script ms/s @${mark / 1000}k`, row.scriptingMsPerSecond[String(mark)]]),
    ),
    flatness: row.flatness,
    'script ms (stream)': row.wholeStream.scriptingMs,
    'long tasks': row.longTasks.count,
    'max task ms': row.longTasks.maxMs,
    fps: row.frames.fps,
    'p95 frame ms': row.frames.p95Ms,
    'text equal': row.textEqual,
    'script ms (each run)': row.runs.map((run) => run.scriptingMs).join(' '),
    'long tasks > 50 ms (each run)': row.runs.map((run) => run.longTasksOver50Ms).join(' '),
  })),
);

const ours = rows.find((row) => row.renderer === 'resumable');
const streamdown = rows.find((row) => row.renderer === 'streamdown');
const plain = rows.find((row) => row.renderer === 'plain');
if (PROFILE_DIR) {
  console.log(`BENCH_UI_PROFILE: profiles in ${PROFILE_DIR}, figures not written`);
} else if (ours && streamdown && plain && rows.length === ALL_RENDERERS.length) {
  const own = (row: RendererRow) => row.wholeStream.scriptingMs - plain.wholeStream.scriptingMs;
  const lastMark = String(MARKS[MARKS.length - 1]);
  const figures = {
    what: `<ResumableChat> streaming a ${answer.length}-character showcase answer at ${TOKENS_PER_SECOND} tokens/s, CPU throttled ${CPU_THROTTLE}x, Chromium, production build`,
    windowChars: WINDOW_CHARS,
    rounds: ROUNDS,
    // Other work on the machine stretches every duration (and makes long tasks): read the
    // ratios of renderers measured in the same run, not the milliseconds alone.
    loadAverage: os.loadavg().map((load) => round(load, 2)),
    goals: {
      flatnessAtMost: 1.3,
      longTasksOver50Ms: 0,
      scriptingVsStreamdownAtMost: 0.5,
    },
    ratios: {
      flatness: ours.flatness,
      scriptingVsStreamdown: round(
        ours.wholeStream.scriptingMs / streamdown.wholeStream.scriptingMs,
        2,
      ),
      // Each renderer's own scripting: the page's, less the same stream drawn as plain text
      // (the hooks, transport, transcript and composer every renderer shares).
      ownScriptingVsStreamdown: round(own(ours) / own(streamdown), 2),
      plainFloorVsStreamdown: round(
        plain.wholeStream.scriptingMs / streamdown.wholeStream.scriptingMs,
        2,
      ),
      scriptingVsStreamdownAtLastMark: round(
        ours.scriptingMsPerSecond[lastMark]! / streamdown.scriptingMsPerSecond[lastMark]!,
        2,
      ),
      // Each round's ratio, the two streams measured back to back.
      scriptingVsStreamdownEachRound: ours.runs.map((run, i) =>
        round(run.scriptingMs / streamdown.runs[i]!.scriptingMs, 2),
      ),
    },
    rows,
  };
  writeResults('ui', figures);
  console.log(figures.ratios);
} else {
  console.log('BENCH_UI_RENDERERS: not every renderer ran, figures not written');
}
