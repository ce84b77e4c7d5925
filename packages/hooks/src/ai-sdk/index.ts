// `@resumable/hooks/ai-sdk`: Resumable's core behind the AI SDK's `useChat`. `ai` and
// `@ai-sdk/react` are peer dependencies: the app's own versions are used.
export { chunksBetween, chunksFor } from './chunks.js';
export type { FollowableChat } from './follow.js';
export { conversationOf } from './messages.js';
export { mirrorRun } from './mirror.js';
export type { Segment } from './segments.js';
export { partsOf, segmentsOf } from './segments.js';
export type { ResumableChatTransportOptions } from './transport.js';
export { createResumableChatTransport, ResumableChatTransport } from './transport.js';
