// `@resumable/ui/turns`: the kit's renderers for the hooks' turn view (`useChatTurns` of
// `@resumable/hooks/turns`), for a transcript of one's own. Its own entry, so the drop-in
// chat's first paint does not carry it.
'use client';

import type { ChatInterrupt, InterruptControls } from '@resumable/hooks/core';
import type { ChatTurn, ToolPart, TurnPart } from '@resumable/hooks/turns';
import type { ChatMessage } from './controller-types.js';
import { cx } from './cx.js';
import { InterruptCard } from './interrupts/interrupt-card.js';
import { type ChatLabels, useLabels } from './labels.js';
import { useHeldForParts } from './lazy-parts.js';
import { type CodeRenderer, type ImagePolicy, Markdown } from './markdown.js';
import { ReasoningBody } from './message.js';
import { MessageFiles } from './message-files.js';
import { ToolCall } from './tool-call.js';

// The types these props take, named here so a caller types them without a second import.
export type { InterruptLabels } from './interrupt-labels.js';
export type { ChatLabels } from './labels.js';
export type { CodeRenderer, ImagePolicy } from './markdown.js';

/** Props of {@link Reasoning}: the reasoning text and whether it still streams. */
export interface ReasoningProps {
  /** The model's reasoning so far. */
  text: string;
  /** Still streaming: open, labelled `reasoningStreaming`. @default false */
  streaming?: boolean;
  /**
   * Overrides of its summary's words: `reasoningStreaming` while it streams, `reasoning`
   * once done. What is left out keeps `DEFAULT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to its `<details>` (which always has `rc-reasoning`). */
  className?: string;
}

/**
 * A model's reasoning, folded: open while it streams (the user sees the model think), folded
 * once done, unless the user chose otherwise.
 */
export function Reasoning({ text, streaming = false, labels, className }: ReasoningProps) {
  return (
    <ReasoningBody
      text={text}
      streaming={streaming}
      labels={useLabels(labels)}
      className={cx('rc-reasoning', className)}
    />
  );
}

/** Props of {@link TurnParts}: one turn, what answers its interrupts, and how to draw its text. */
export interface TurnPartsProps {
  /** A turn of `useChatTurns(chat)`. */
  turn: ChatTurn;
  /** What answers an interrupt (an approval, a question, a browser tool): the chat itself. */
  controls: Pick<InterruptControls, 'resolve' | 'cancel'> &
    Partial<Pick<InterruptControls, 'rerunTool'>>;
  /**
   * Which remote images in answers may load (`true`: every http(s) image).
   * @default false (remote images in replies are not loaded)
   */
  allowRemoteImages?: ImagePolicy;
  /**
   * Renders the body of each fenced code block instead of the built-in highlighter.
   * @default undefined (the built-in highlighter)
   */
  renderCode?: CodeRenderer;
  /**
   * Overrides of the words its parts show (a tool call's states, reasoning, code blocks,
   * interrupt cards…): any `ChatLabels` key; what is left out keeps `DEFAULT_LABELS`. Files
   * are drawn with `DEFAULT_ATTACHMENT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to the wrapping `<div>` (which always has `rc-turn-parts`). */
  className?: string;
}

/**
 * A turn's parts, in order, drawn by the kit's renderers: a prompt's text as written, an
 * answer's as `<Markdown>`; reasoning as `<Reasoning>`; a tool call as `<ToolCall>` (its
 * status, arguments and result) followed by the card of its approval or browser tool;
 * files as `<MessageFiles>`; a question as `<InterruptCard>`. No action row: a transcript of
 * one's own draws its own.
 */
export function TurnParts({
  turn,
  controls,
  allowRemoteImages = false,
  renderCode,
  labels: labelsProp,
  className,
}: TurnPartsProps) {
  const labels = useLabels(labelsProp);
  // A turn with a tool call or files waits for the parts' chunk, as <MessageList> does.
  const held = useHeldForParts(true, () =>
    turn.parts.some((part) => part.type === 'tool' || part.type === 'file'),
  );
  // Files are drawn once per message, where its first file part is.
  const seen = new Set<string>();
  const drawn = turn.parts.filter((part) => {
    if (part.type !== 'file') return true;
    if (seen.has(part.messageId)) return false;
    seen.add(part.messageId);
    return true;
  });
  if (held) return null;
  return (
    <div className={cx('rc-turn-parts', className)} data-role={turn.role}>
      {drawn.map((part, i) => (
        <Part
          // biome-ignore lint/suspicious/noArrayIndexKey: a turn's parts are positional; ids are the model's data and may repeat
          key={i}
          part={part}
          turn={turn}
          draw={{ controls, allowRemoteImages, renderCode, labels }}
        />
      ))}
    </div>
  );
}

interface Drawing {
  controls: TurnPartsProps['controls'];
  allowRemoteImages: ImagePolicy;
  renderCode: CodeRenderer | undefined;
  labels: ChatLabels;
}

function Part({ part, turn, draw }: { part: TurnPart; turn: ChatTurn; draw: Drawing }) {
  const { controls, labels } = draw;
  const card = (interrupt: ChatInterrupt) => (
    <InterruptCard
      interrupt={interrupt}
      onResolve={controls.resolve}
      onCancel={controls.cancel}
      onRerun={controls.rerunTool}
      labels={labels}
    />
  );
  switch (part.type) {
    case 'text':
      return turn.role === 'user' ? (
        <div className="rc-message__bubble" data-part="text">
          {part.text}
        </div>
      ) : (
        <div className="rc-message__content" data-part="text" data-text={part.text}>
          <Markdown
            text={part.text}
            streaming={part.streaming}
            allowRemoteImages={draw.allowRemoteImages}
            renderCode={draw.renderCode}
            labels={labels}
          />
        </div>
      );
    case 'reasoning':
      return <Reasoning text={part.text} streaming={part.streaming} labels={labels} />;
    case 'file': {
      const message = turn.messages.find((m) => m.id === part.messageId);
      return message ? <MessageFiles message={message} /> : null;
    }
    case 'tool':
      return (
        <>
          <ToolCall
            call={{
              id: part.toolCallId,
              type: 'function',
              function: { name: part.toolName, arguments: part.arguments },
              ...(part.streaming ? { streaming: true as const } : {}),
            }}
            result={resultOf(turn, part)}
            ended={turn.messages.find((m) => m.id === part.messageId)?.ended}
            interrupt={part.interrupt ?? undefined}
            labels={labels}
          />
          {part.interrupt ? card(part.interrupt) : null}
        </>
      );
    default:
      return card(part.interrupt);
  }
}

/** The tool message answering the part's call (the last, as the turn view pairs them). */
function resultOf(turn: ChatTurn, part: ToolPart): ChatMessage | undefined {
  if (part.result === null) return undefined;
  return turn.messages.findLast((m) => m.role === 'tool' && m.toolCallId === part.toolCallId);
}
