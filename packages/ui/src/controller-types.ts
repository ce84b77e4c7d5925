// The UI renders only from the hooks' public shapes. One import point, so the parts and the
// drop-in agree on the contract with `useResumableChat`.
export type {
  BranchInfo,
  ChatController,
  ChatMessage,
  ConnectionInfo,
  ConnectionPhase,
  OutboxItem,
} from '@resumable/hooks/core';
