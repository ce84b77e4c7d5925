import type { CSSProperties, ReactElement } from 'react';
import { useEffect, useState } from 'react';
import { LazyPanel } from './lazy-panel.js';
import type { DevtoolsRecorder } from './recorder.js';
import { recorder } from './recorder.js';

/** Where `<ResumableDevtools>` keeps whether it was open, so a reload keeps it open. */
const OPEN_KEY = 'resumable-devtools:open';

/** Props of `<ResumableDevtoolsPanel>` (and of `<ResumableDevtools>`'s panel). */
export interface ResumableDevtoolsPanelProps {
  /** The conversation shown first: a session key (`useResumableChat`'s `key`). */
  initialKey?: string;
  /** Light or dark; by default the page's `prefers-color-scheme`. */
  theme?: 'light' | 'dark';
}

/** Props of `<ResumableDevtools>`: the panel's, and where its button sits. */
export interface ResumableDevtoolsProps extends ResumableDevtoolsPanelProps {
  /** Open on the first visit; after that the panel remembers (localStorage). @default false */
  initialIsOpen?: boolean;
  /** The corner of the button that opens the panel. @default 'bottom-left' */
  buttonPosition?: 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';
}

/**
 * The page's recorder. Recording starts at the first render in a browser (never on a
 * server), before the hooks' engine has loaded; what shows waits for the mount, so a page
 * rendered on a server hydrates to the same nothing.
 */
function useRecorder(): DevtoolsRecorder | null {
  const [page] = useState(() => (typeof window === 'undefined' ? null : recorder()));
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted ? page : null;
}

function openedBefore(): boolean | null {
  try {
    const stored = localStorage.getItem(OPEN_KEY);
    return stored === null ? null : stored === '1';
  } catch {
    return null; // storage refused (a sandboxed frame): not remembered
  }
}

function remember(open: boolean): void {
  try {
    localStorage.setItem(OPEN_KEY, open ? '1' : '0');
  } catch {
    // Not remembered; the panel still opens and closes.
  }
}

const BUTTON: CSSProperties = {
  position: 'fixed',
  zIndex: 2147483000,
  font: '12px/1 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  color: '#ffffff',
  background: '#1b1d22',
  border: '1px solid #8a9099',
  borderRadius: 999,
  padding: '6px 10px',
  cursor: 'pointer',
};

const FRAME: CSSProperties = {
  position: 'fixed',
  left: 0,
  right: 0,
  bottom: 0,
  height: 'min(45vh, 480px)',
  zIndex: 2147483000,
  display: 'flex',
  flexDirection: 'column',
  borderTop: '1px solid #8a9099',
  boxShadow: '0 -4px 16px rgb(0 0 0 / 0.2)',
};

/**
 * The devtools in one line: `<ResumableDevtools />` anywhere in the app (no provider
 * needed). A button in a corner opens the panel over the bottom of the page; the panel is
 * loaded when first opened, and it shows what every Resumable client of the page did from
 * the devtools' first render on. From `@resumable/devtools` it renders nothing unless
 * `process.env.NODE_ENV` is `'development'` (and is dropped from production bundles);
 * `@resumable/devtools/production` always renders it.
 */
export function ResumableDevtools({
  initialIsOpen = false,
  buttonPosition = 'bottom-left',
  initialKey,
  theme,
}: ResumableDevtoolsProps): ReactElement | null {
  const page = useRecorder();
  const [open, setOpen] = useState(initialIsOpen);
  useEffect(() => {
    const before = openedBefore();
    if (before !== null) setOpen(before);
  }, []);
  const toggle = (next: boolean) => {
    setOpen(next);
    remember(next);
  };
  if (page === null) return null;
  if (!open) {
    const [vertical, horizontal] = buttonPosition.split('-') as [
      'top' | 'bottom',
      'left' | 'right',
    ];
    return (
      <button
        type="button"
        style={{ ...BUTTON, [vertical]: 12, [horizontal]: 12 }}
        aria-label="Open the Resumable devtools"
        onClick={() => toggle(true)}
      >
        Resumable
      </button>
    );
  }
  return (
    <div style={FRAME} className="rdt-float">
      <LazyPanel
        recorder={page}
        onClose={() => toggle(false)}
        initialKey={initialKey}
        theme={theme}
      />
    </div>
  );
}

/**
 * The panel alone, to place in a page of your own (the demo's side column) or in another
 * devtools shell: it fills its container. Loaded when first rendered; records from then on.
 */
export function ResumableDevtoolsPanel({
  initialKey,
  theme,
}: ResumableDevtoolsPanelProps): ReactElement | null {
  const page = useRecorder();
  if (page === null) return null;
  return <LazyPanel recorder={page} initialKey={initialKey} theme={theme} />;
}

/**
 * A plugin for the TanStack Devtools shell (`@tanstack/react-devtools`), structurally its
 * `TanStackDevtoolsReactPlugin`: `<TanStackDevtools plugins={[resumableDevtoolsPlugin()]} />`.
 */
export interface ResumableDevtoolsPlugin {
  /** `'resumable'`: the shell's key for the tab. */
  readonly id: string;
  /** The tab's title, `'Resumable'`. */
  readonly name: string;
  /** Whether the shell opens this tab first. */
  readonly defaultOpen: boolean;
  /** Renders the panel in the shell's theme. */
  render(el: HTMLElement, props: { theme: 'light' | 'dark' }): ReactElement;
}

/** Options of `resumableDevtoolsPlugin()`. */
export interface ResumableDevtoolsPluginOptions {
  /** The conversation shown first: a session key (`useResumableChat`'s `key`). */
  initialKey?: string;
  /** Whether the shell opens this tab first. @default false */
  defaultOpen?: boolean;
}

/**
 * The devtools as a TanStack Devtools plugin. Recording starts now (the shell mounts the
 * panel only when its tab is opened), so make it where the app starts.
 */
export function resumableDevtoolsPlugin(
  options: ResumableDevtoolsPluginOptions = {},
): ResumableDevtoolsPlugin {
  if (typeof window !== 'undefined') recorder();
  const { initialKey, defaultOpen = false } = options;
  return {
    id: 'resumable',
    name: 'Resumable',
    defaultOpen,
    render: (_el, { theme }) => (
      <ResumableDevtoolsPanel theme={theme} {...(initialKey === undefined ? {} : { initialKey })} />
    ),
  };
}
