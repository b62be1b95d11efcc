import { CommitError } from '../core/store/journalWriter';

/**
 * What a failed send tells the person. A commit that failed (a full disk) keeps its batch and
 * writes it when space returns, so that message WILL be answered: saying "not sent" invited a
 * second Send that was answered twice. A re-send keeps the request id, so it is safe either way.
 */
export function sendFailure(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof CommitError) {
    return `Not saved yet: ${reason}. It will be sent when there is space again, and answered once; your text stays in the box (sending it again is safe).`;
  }
  return `Not sent: ${reason}. Your text is still in the box.`;
}
