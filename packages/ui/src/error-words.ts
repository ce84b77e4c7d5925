import { type ErrorCode, isErrorCode } from '@resumable/protocol';

/**
 * Plain words for every error code: what the user sees instead of a raw "Failed to fetch".
 * A switch over the typed code (the compiler checks that none is missing); a code from the
 * wire is only looked up after `isErrorCode` says it is one of ours.
 */
export function errorWords(code: string | undefined): string {
  return code !== undefined && isErrorCode(code) ? wordsFor(code) : GENERIC;
}

const GENERIC = 'Something went wrong.';

function wordsFor(code: ErrorCode): string {
  switch (code) {
    case 'network':
    case 'timeout':
    case 'unexpected_response':
      return 'Can’t reach the server.';
    case 'stalled':
    case 'no_progress':
      return 'The connection stopped moving.';
    case 'unauthorized':
    case 'forbidden':
      return 'You don’t have access to this conversation.';
    case 'run_not_found':
    case 'thread_not_found':
    case 'not_found':
      return 'This conversation no longer exists on the server.';
    case 'offset_expired':
      return 'The server no longer keeps this part of the answer.';
    case 'offset_ahead':
    case 'offset_gap':
    case 'event_after_terminal':
    case 'malformed_event':
    case 'unknown_event':
    case 'bad_patch':
    case 'bad_snapshot':
    case 'event_too_large':
      return 'The server sent something this page can’t read.';
    case 'bad_request':
    case 'unsupported_media_type':
    case 'method_not_allowed':
      return 'The server refused the request.';
    case 'payload_too_large':
      return 'That message is too long.';
    case 'too_many_requests':
      return 'Too many requests — please wait a moment.';
    case 'run_in_progress':
      return 'An answer is still being written in this conversation.';
    case 'interrupt_answered':
      return 'This was already answered elsewhere.';
    case 'message_not_found':
      return 'That message is no longer in this conversation.';
    case 'file_not_found':
      return 'That file is no longer available.';
    case 'internal':
      return 'The server had a problem.';
    case 'store_unavailable':
      // Both a 503 (retried) and a run's end (RUN_ERROR): true of either.
      return 'The server could not save this answer. What arrived is kept.';
    case 'agent_lost':
      return 'The assistant stopped unexpectedly. The partial answer is kept.';
    case 'agent_failed':
    case 'upstream_failed':
      return 'The assistant could not finish this answer.';
    case 'agent_timeout':
    case 'run_timeout':
      return 'The assistant took too long and was stopped.';
    case 'run_too_large':
      return 'The answer grew too long and was stopped.';
    case 'corrupt_record':
    case 'storage_unavailable':
      return 'This browser could not keep the conversation.';
    case 'aborted':
      return 'Stopped.';
  }
}
