import { type ReactNode, useEffect, useRef, useState } from 'react';
import { CopyButton } from './copy-button.js';
import type { ChatLabels } from './labels.js';
import type { CodeRenderer } from './markdown.js';

export interface CodeBlockProps {
  code: string;
  language: string | null;
  labels: Pick<ChatLabels, 'copyCode' | 'copied' | 'codeBlock'>;
  /** Replaces the built-in highlighter. */
  renderCode?: CodeRenderer | undefined;
}

/**
 * A fenced code block: language label, copy button, and the code, highlighted once the
 * highlighter has loaded (it is never on the first paint's path: until then, and for
 * languages it does not know, the code shows plain). Long lines scroll sideways, in a box
 * reachable by keyboard.
 */
export function CodeBlock({ code, language, labels, renderCode }: CodeBlockProps) {
  return (
    <div className="rc-code" data-part="code">
      <div className="rc-code__header">
        <span className="rc-code__lang">{language}</span>
        <CopyButton text={code} label={labels.copyCode} copiedLabel={labels.copied} />
      </div>
      {renderCode ? (
        renderCode(code, language)
      ) : (
        <Highlighted code={code} language={language} label={labels.codeBlock(language)} />
      )}
    </div>
  );
}

/** At most one highlight per this many ms while code streams in. */
const THROTTLE_MS = 120;

function Highlighted({
  code,
  language,
  label,
}: {
  code: string;
  language: string | null;
  /** The name of its scroll box. */
  label: string;
}) {
  const [done, setDone] = useState<{ code: string; nodes: ReactNode } | null>(null);
  const last = useRef(0);
  useEffect(() => {
    if (!language) return;
    let live = true;
    const wait = Math.max(0, last.current + THROTTLE_MS - Date.now());
    const timer = setTimeout(() => {
      last.current = Date.now();
      import('./highlight.js')
        .then((m) => m.highlight(code, language))
        .then((nodes) => {
          if (live && nodes !== null) setDone({ code, nodes });
        })
        .catch(() => {
          // The chunk failed to load (offline after a deploy): the code stays plain.
        });
    }, wait);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [code, language]);
  // While code streams in, the highlighted part so far plus the plain rest: no flicker.
  const body =
    done && code.startsWith(done.code) ? [done.nodes, code.slice(done.code.length)] : code;
  return (
    // Long lines scroll sideways in their own box, reachable by keyboard and named.
    // biome-ignore lint/a11y/useSemanticElements: the box is the pre itself (a section around it would be a second box)
    <pre
      role="region"
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
    >
      <code className={language ? `language-${language}` : undefined}>
        {body}
        {'\n'}
      </code>
    </pre>
  );
}
