import type { ChatLabels } from '../labels.js';
import type { InterruptCardProps } from './card-props.js';
import { InterruptedTool } from './interrupted-tool.js';
import { ToolStatus } from './tool-status.js';

/**
 * A browser-side tool: "running in this page" while it runs; after a reload cut it (and
 * it is not idempotent), the question to the person — run it again, or cancel.
 */
export function ToolRunCard(props: InterruptCardProps & { labels: ChatLabels }) {
  const { interrupt: i, labels } = props;
  if (i.execution !== 'interrupted') {
    return <ToolStatus interrupt={i} labels={labels} className={props.className} />;
  }
  return <InterruptedTool {...props} />;
}
