// `@resumable/ui/interrupts`: the answering cards one by one and the schema-to-form helpers,
// for a chat that lays its cards out itself. `<InterruptCard>` (from `@resumable/ui`) loads
// them lazily; importing this entry puts them in your first paint.
'use client';

// The words the cards take, named here so a caller types them without a second import.
export type { InterruptLabels } from '../interrupt-labels.js';
export type { ChatLabels } from '../labels.js';
export { ApprovalCard } from './approval-card.js';
export type { InterruptCardProps } from './card-props.js';
export { InterruptCard } from './interrupt-card.js';
export { QuestionCard } from './question-card.js';
export { answerOf, type FormField, type FormShape, formOf } from './schema-form.js';
export { ToolRunCard } from './tool-run-card.js';
