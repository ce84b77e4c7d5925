import type { ReactNode } from 'react';
import { CopyButton } from './copy-button.js';
import type { ChatLabels } from './labels.js';
import { chunk, useChunk } from './lazy-chunk.js';

/**
 * Renders the body of a fenced code block in place of the built-in highlighter; the header
 * with the language and the copy button stays. Return plain elements (no
 * `dangerouslySetInnerHTML` of model output unless your highlighter escapes it). Pass a
 * stable function.
 */
export type CodeRenderer = (code: string, language: string | null) => ReactNode;

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

/** The highlighter and the highlighted body (highlight.tsx), fetched by the first block with a language. */
export const highlightChunk = chunk(() => import('./highlight.js'));

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
  const highlighter = useChunk(highlightChunk, language !== null);
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
        {/* Plain until the highlighter is there (a chunk that cannot load leaves it plain). */}
        {highlighter && language ? (
          <highlighter.HighlightedCode code={code} language={language} />
        ) : (
          code
        )}
        {'\n'}
      </code>
    </pre>
  );
}
