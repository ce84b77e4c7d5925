// Loaded on demand by <CodeBlock> (highlightChunk): the first paint never waits for it.
import type { LanguageFn } from 'highlight.js';
import { createLowlight } from 'lowlight';
import { type ReactNode, useEffect, useRef, useState } from 'react';

/**
 * Syntax highlighting with lowlight (highlight.js grammars, output as a syntax tree). Each
 * grammar is its own chunk, fetched the first time a block in that language appears.
 */
const lowlight = createLowlight();

type Loader = () => Promise<{ default: LanguageFn }>;

/** The languages models write most, by highlight.js name. */
const GRAMMARS = new Map<string, Loader>([
  ['bash', () => import('highlight.js/lib/languages/bash')],
  ['c', () => import('highlight.js/lib/languages/c')],
  ['cpp', () => import('highlight.js/lib/languages/cpp')],
  ['csharp', () => import('highlight.js/lib/languages/csharp')],
  ['css', () => import('highlight.js/lib/languages/css')],
  ['diff', () => import('highlight.js/lib/languages/diff')],
  ['go', () => import('highlight.js/lib/languages/go')],
  ['java', () => import('highlight.js/lib/languages/java')],
  ['javascript', () => import('highlight.js/lib/languages/javascript')],
  ['json', () => import('highlight.js/lib/languages/json')],
  ['kotlin', () => import('highlight.js/lib/languages/kotlin')],
  ['markdown', () => import('highlight.js/lib/languages/markdown')],
  ['php', () => import('highlight.js/lib/languages/php')],
  ['python', () => import('highlight.js/lib/languages/python')],
  ['ruby', () => import('highlight.js/lib/languages/ruby')],
  ['rust', () => import('highlight.js/lib/languages/rust')],
  ['sql', () => import('highlight.js/lib/languages/sql')],
  ['swift', () => import('highlight.js/lib/languages/swift')],
  ['typescript', () => import('highlight.js/lib/languages/typescript')],
  ['xml', () => import('highlight.js/lib/languages/xml')],
  ['yaml', () => import('highlight.js/lib/languages/yaml')],
]);

const ALIASES = new Map<string, string>([
  ['sh', 'bash'],
  ['shell', 'bash'],
  ['zsh', 'bash'],
  ['console', 'bash'],
  ['c++', 'cpp'],
  ['cs', 'csharp'],
  ['golang', 'go'],
  ['js', 'javascript'],
  ['jsx', 'javascript'],
  ['mjs', 'javascript'],
  ['kt', 'kotlin'],
  ['md', 'markdown'],
  ['py', 'python'],
  ['rb', 'ruby'],
  ['rs', 'rust'],
  ['ts', 'typescript'],
  ['tsx', 'typescript'],
  ['html', 'xml'],
  ['svg', 'xml'],
  ['yml', 'yaml'],
]);

/** One load per grammar, shared by every block. */
const loading = new Map<string, Promise<void>>();

/**
 * Past this many characters a block stays plain: lowlight works synchronously, and a block of
 * a few hundred KB held the main thread for seconds (again each time it grew while streaming).
 */
export const MAX_HIGHLIGHT_CHARS = 50_000;

/**
 * The code as highlighted React nodes, or null for a language it does not know or a block
 * over `MAX_HIGHLIGHT_CHARS`.
 */
export async function highlight(code: string, language: string): Promise<ReactNode | null> {
  if (code.length > MAX_HIGHLIGHT_CHARS) return null;
  const lower = language.toLowerCase();
  const name = ALIASES.get(lower) ?? lower;
  const load = GRAMMARS.get(name);
  if (!load) return null;
  let ready = loading.get(name);
  if (!ready) {
    ready = load().then((m) => lowlight.register(name, m.default));
    loading.set(name, ready);
  }
  await ready;
  return toReact(lowlight.highlight(name, code).children);
}

type Node = ReturnType<typeof lowlight.highlight>['children'][number];

/** lowlight's tree holds only text and `<span class="hljs-…">`: rendered as elements. */
function toReact(nodes: readonly Node[]): ReactNode[] {
  return nodes.map((node, i) => {
    if (node.type === 'text') return node.value;
    if (node.type !== 'element') return null;
    const classes = node.properties.className;
    return (
      // biome-ignore lint/suspicious/noArrayIndexKey: a highlighted block is rendered whole
      <span key={i} className={Array.isArray(classes) ? classes.join(' ') : undefined}>
        {toReact(node.children)}
      </span>
    );
  });
}

/** At most one highlight per this many ms while code streams in. */
const THROTTLE_MS = 120;

/**
 * The body of a code block, highlighted: plain until its highlight is done, then the
 * highlighted part so far plus the plain rest while more code streams in (no flicker).
 */
export function HighlightedCode({ code, language }: { code: string; language: string }) {
  const [done, setDone] = useState<{ code: string; nodes: ReactNode } | null>(null);
  const last = useRef(0);
  useEffect(() => {
    let live = true;
    const wait = Math.max(0, last.current + THROTTLE_MS - Date.now());
    const timer = setTimeout(() => {
      last.current = Date.now();
      highlight(code, language)
        .then((nodes) => {
          if (live && nodes !== null) setDone({ code, nodes });
        })
        .catch(() => {
          // A grammar's chunk failed to load (offline after a deploy): the code stays plain.
        });
    }, wait);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [code, language]);
  return done && code.startsWith(done.code) ? [done.nodes, code.slice(done.code.length)] : code;
}
