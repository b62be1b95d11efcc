import type { Ledger } from '../../core/actions/ledger';
import type { ChangeSet } from '../../core/approval/changes/changeSet';
import { PERSON_PROPOSAL_PREFIX } from '../../core/approval/changes/changeSetDecider';
import { planRevert } from '../../core/approval/changes/checkpoints';
import type { ChangeSetStore } from '../../core/approval/changes/changeSetStore';
import type { EditApplier } from '../../core/approval/changes/editPorts';
import { transition } from '../../core/approval/changes/changeSetReview';

/** The ledger's action name for reverting applied change sets. */
export const REVERT_EDITS_ACTION = 'revert_edits';

/** What a revert needs; ApprovalService passes its own parts. */
export interface RevertDeps {
  store: ChangeSetStore;
  read(relativePath: string): Promise<string | null>;
  applier: EditApplier;
  ledger: Pick<Ledger, 'intent' | 'outcome'>;
  durable(): boolean;
  /** Tells the task (an event in its stream) what the person undid. */
  /** `text` for the model, `shown` for the person (Agent.tellTask). */
  tellTask(taskId: string, text: string, shown: string): Promise<void>;
  /** A set's card changed (now reverted). */
  onChange(changeSet: ChangeSet): void;
}

/** What a revert did: the files restored, or why nothing was. */
export type RevertResult = { ok: true; files: string[]; changeSets: string[] } | { ok: false; reason: string; changed: string[] };

/**
 * Reverts applied change sets as ONE workspace edit (one Undo brings them back), refusing the
 * whole revert when any of their files changed since (planRevert names them). The sets are marked
 * `reverted` (so they cannot be reverted twice) and each task is told what was undone.
 */
export async function revertChangeSets(sets: readonly ChangeSet[], deps: RevertDeps): Promise<RevertResult> {
  if (!deps.durable())
    return {
      ok: false,
      changed: [],
      reason:
        'Tasklane cannot save its state right now (disk full or another window holds the store), so the revert could not be recorded; nothing was changed',
    };
  const plan = await planRevert(sets, deps.read);
  if (!plan.ok) return { ok: false, reason: plan.reason, changed: plan.changed };
  const applied = sets.filter((s) => s.status === 'applied' || s.status === 'partially_applied');
  const taskId = applied[0]?.taskId ?? '';
  const ledgerId = await deps.ledger.intent(taskId, REVERT_EDITS_ACTION, { changeSetIds: applied.map((s) => s.id), files: plan.files });
  try {
    await deps.applier.apply(plan.changes);
  } catch (error) {
    await deps.ledger.outcome(ledgerId, 'failed', { error: (error as Error).message });
    return { ok: false, changed: [], reason: `the revert could not be applied (${(error as Error).message}); nothing was changed` };
  }
  await deps.ledger.outcome(ledgerId, 'done', { files: plan.files });
  for (const set of applied) {
    const reverted = transition(set, 'reverted');
    if (await deps.store.update(reverted, set.status)) deps.onChange(reverted);
  }
  for (const task of new Set(applied.map((s) => s.taskId))) {
    if (task.startsWith(PERSON_PROPOSAL_PREFIX)) continue; // the person's own proposal: no task to tell
    const files = [
      ...new Set(applied.filter((s) => s.taskId === task).flatMap((s) => s.files.filter((f) => f.decision !== 'reject').map((f) => f.newPath ?? f.path))),
    ];
    await deps
      .tellTask(
        task,
        `The user reverted ${applied.length > 1 ? 'your applied edits' : 'your applied edit'} to ${files.join(', ')}: those files are back as they were before. Read them again before editing them.`,
        `You reverted the task's edits to ${files.join(', ')}; they are back as they were.`,
      )
      .catch(() => undefined);
  }
  return { ok: true, files: plan.files, changeSets: applied.map((s) => s.id) };
}
