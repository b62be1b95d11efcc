/** A chore's spend as the host shows it: Resume after a tripped cap, and why a consented chore does not run now. */
import type { ChoreSpendLedger } from '../../core/chores/spendLedger';
import type { ChoreDefinition } from '../../core/chores/types';
import type { Logger } from '../../core/ports';
import type { ChoreSettings } from '../settings';
import { spendSummary } from './choreViews';

/** Lifts the pause a tripped budget put on a chore; says what it has spent against its caps. */
export async function resumeChore(
  spend: ChoreSpendLedger,
  choreId: string,
  chore: ChoreDefinition | undefined,
  caps: ChoreSettings,
  logger: Logger,
): Promise<string> {
  const resumed = await spend.resume(choreId);
  const own = spend.spent(choreId);
  const all = spend.spent();
  const summary = spendSummary(own, all, chore?.spendLimits, caps);
  if (resumed) logger.info('CHORE', `chore ${choreId} resumed by the user (${summary})`);
  // A cap still reached stops the next run again at its first model call: say so now.
  const still = chore && spend.check(choreId, chore.spendLimits ?? {}, caps);
  return `${resumed ? 'Resumed' : 'Not paused'}: ${summary}${still && !still.ok ? `. Note: ${still.message}, so its next run will stop again; raise the cap or wait for the next period.` : ''}`;
}

/** Why a consented chore does not run now: the master switch, `enabled: false`, a budget pause. */
export function stoppedProblem(chore: ChoreDefinition, caps: ChoreSettings, spend: Pick<ChoreSpendLedger, 'paused'>): string | undefined {
  if (!caps.enabled) return 'Chores are switched off (setting tasklane.chores.enabled).';
  if (chore.enabled === false) return 'Disabled in .tasklane/chores.yaml (enabled: false).';
  const paused = spend.paused(chore.id);
  if (paused) return `Paused: ${paused.reason}. Resume it to run again.`;
  return undefined;
}
