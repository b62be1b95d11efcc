import type { DeadLetters } from '../core/engine/deadLetters';

/** What the dead-letter commands say to the person (VS Code notifications; a recorder in tests). */
export interface DeadLetterPrompts {
  info(text: string): void;
  error(text: string): void;
  /** A modal question; resolves true when the person chose `action`. */
  confirm(text: string, action: string): Promise<boolean>;
}

/**
 * `tasklane.retryDeadLetters`: re-queues every dead letter through the engine's owner of them, so
 * the sidebar's list updates too. Returns how many; a failure is shown, then rethrown for scripts.
 */
export async function retryDeadLettersCommand(deadLetters: Pick<DeadLetters, 'retry'>, prompts: DeadLetterPrompts): Promise<number> {
  try {
    const n = await deadLetters.retry();
    prompts.info(n === 0 ? 'Tasklane: there are no dead letters to retry.' : `Tasklane: ${plural(n)} re-queued.`);
    return n;
  } catch (error) {
    prompts.error(`Tasklane: the dead letters could not be retried: ${(error as Error).message}`);
    throw error;
  }
}

/** `tasklane.dismissDeadLetters`: asks first unless `confirmed`; returns how many were dismissed. */
export async function dismissDeadLettersCommand(
  deadLetters: Pick<DeadLetters, 'list' | 'dismiss'>,
  prompts: DeadLetterPrompts,
  confirmed: boolean,
): Promise<number> {
  const count = deadLetters.list().length;
  if (count === 0) {
    if (!confirmed) prompts.info('Tasklane: there are no dead letters to dismiss.');
    return 0;
  }
  if (!confirmed) {
    const ok = await prompts.confirm(`Dismiss ${plural(count)}? They leave the queue for good (the trigger history keeps a record).`, 'Dismiss');
    if (!ok) return 0;
  }
  try {
    return await deadLetters.dismiss();
  } catch (error) {
    prompts.error(`Tasklane: the dead letters could not be dismissed: ${(error as Error).message}`);
    throw error;
  }
}

const plural = (n: number) => `${n} dead ${n === 1 ? 'letter' : 'letters'}`;
