/**
 * The user's decision on a proposed change set, carried out: approve (user's edits of the
 * proposed side → staleness check → ledger intent → one apply → ledger outcome) or reject, each
 * stored compare-and-set and announced to the waiting task with an `approval` trigger.
 */
import type { ProblemsWatch } from '../../codeIntel/problemsAfterApply';
import type { Ledger } from '../../actions/ledger';
import { USER_PRIORITY } from '../../engine/engineEnv';
import type { ApprovalPayload } from '../../engine/triggerPayloads';
import type { Logger, WorkspaceReader } from '../../ports';
import type { TriggerStore } from '../../store/types';
import type { ChangeSet, ChangeSetStatus, FileDecision } from './changeSet';
import { approveChangeSet, decideFile, describeOutcome, editProposedContent, markApplied, rejectChangeSet, transition } from './changeSetReview';
import type { ChangeSetStore } from './changeSetStore';
import type { EditApplier } from './editPorts';

/** The ledger's action name for writing an approved change set. */
export const APPLY_EDITS_ACTION = 'apply_edits';

/**
 * Task id prefix of a change set the person proposed themselves (a reply's code block, Propose as
 * Edit): there is no task waiting to be woken with the outcome.
 */
export const PERSON_PROPOSAL_PREFIX = 'person:';

/** What the decider needs; the host wires the real ones, tests fakes. */
export interface ChangeSetDeciderDeps {
  store: ChangeSetStore;
  files: WorkspaceReader;
  applier: EditApplier;
  ledger: Pick<Ledger, 'intent' | 'outcome'>;
  /** False while the agent's state cannot be committed (disk full, lost lease): nothing is applied then. */
  durable: () => boolean;
  /** Where the waiting task's wake-up goes. */
  triggers: Pick<TriggerStore, 'emit'>;
  logger: Logger;
  /** The host's language features: new problems in the applied files reach the task (absent: none). */
  problems?: ProblemsWatch;
  /** Called after each stored change of a set, so the sidebar can patch its card. */
  onChange?: (changeSet: ChangeSet) => void;
  /**
   * The path guard run again at apply time (editTarget.ts `applyTimeGuard`): undefined when the
   * stored path still resolves to itself inside the workspace, else why nothing may be written.
   */
  recheck?: (relativePath: string) => Promise<string | undefined>;
}

/** Options of an approval. */
export interface ApproveOptions {
  /** The user's edits of the proposed side, by path (newPath for a rename); unchanged texts may be included. */
  proposedEdits?: Readonly<Record<string, string>>;
  /** Wake the task with the outcome (default true). Auto-approval inside the action itself does not: the action's result tells the model. */
  notifyTask?: boolean;
}

/** Thrown when a decision cannot be carried out; the message says what to do. */
export class DecisionError extends Error {
  override readonly name = 'DecisionError';
}

export class ChangeSetDecider {
  constructor(private readonly deps: ChangeSetDeciderDeps) {}

  /**
   * Approves a pending set. Returns the set as stored at the end: 'applied' or
   * 'partially_applied'; 'stale' when a file changed on disk since the proposal or the apply
   * failed (nothing written); 'rejected' when the user had excluded every file.
   */
  async approve(id: string, options: ApproveOptions = {}): Promise<ChangeSet> {
    const { ledger, logger } = this.deps;
    if (!this.deps.durable()) {
      throw new DecisionError(
        `Not applying change set ${id}: Tasklane cannot save its state right now (disk full or another window holds the store), so the edit could not be recorded. Free space or close the other window, then approve again.`,
      );
    }
    let changeSet = await this.pending(id);
    const original = changeSet;
    for (const [path, text] of Object.entries(options.proposedEdits ?? {})) {
      const file = changeSet.files.find((f) => (f.newPath ?? f.path) === path || f.path === path);
      if (file && file.after !== null && file.after !== text) changeSet = editProposedContent(changeSet, path, text);
    }
    // Before anything reads or writes through the stored paths: a link swapped in since the
    // proposal would redirect both the staleness read and the write.
    const moved = await this.recheck(changeSet);
    if (moved !== undefined) {
      const stale = transition(changeSet, 'stale', `nothing was applied: ${moved}; read the files again and propose the edit anew`);
      await this.store(stale, 'pending');
      logger.warn('ACTION', `change set ${id} refused at apply time: ${moved}`);
      if (options.notifyTask !== false) await this.notify(stale, 'rejected');
      return stale;
    }
    const outcome = await approveChangeSet(changeSet, this.deps.files);
    if (!outcome.ok || outcome.changeSet.status === 'rejected') {
      await this.store(outcome.changeSet, 'pending');
      logger.info('ACTION', `change set ${id} ${outcome.changeSet.status}: ${outcome.changeSet.reason ?? ''}`);
      if (options.notifyTask !== false) await this.notify(outcome.changeSet, 'rejected');
      return outcome.changeSet;
    }
    await this.store(outcome.changeSet, 'pending');
    const paths = outcome.apply.map((f) => (f.newPath ? `${f.path} → ${f.newPath}` : f.path));
    const ledgerId = await ledger.intent(changeSet.taskId, APPLY_EDITS_ACTION, { changeSetId: id, files: paths, userEdited: changeSet !== original });
    let final: ChangeSet;
    // The files as the apply leaves them (a deleted one has no problems; a renamed one is at its new path).
    const left = outcome.apply.filter((f) => f.kind !== 'delete').map((f) => f.newPath ?? f.path);
    const problemsAfter = await this.deps.problems?.(left).catch(() => undefined);
    try {
      await this.deps.applier.apply(outcome.apply);
      final = markApplied(outcome.changeSet);
      await ledger.outcome(ledgerId, 'done', { status: final.status, files: paths });
    } catch (error) {
      const message = (error as Error).message;
      final = transition(
        outcome.changeSet,
        'stale',
        `the edit could not be applied (${message}); nothing was written, read the files again and propose the edit anew`,
      );
      await ledger.outcome(ledgerId, 'failed', { error: message }).catch((e) => logger.error('ACTION', 'ledger outcome failed', e));
      logger.warn('ACTION', `change set ${id} could not be applied: ${message}`);
    }
    await this.store(final, 'approved');
    logger.info('ACTION', `change set ${id} ${final.status}: ${paths.join(', ')}`);
    if (final.status !== 'stale' && problemsAfter) {
      // Stored first, so the card shows the outcome at once; the problems follow when the servers report.
      const problems = await problemsAfter();
      const withProblems = problems ? { ...final, problems } : undefined;
      // Reverted meanwhile (the person is quicker than the language server): the revert tells the task.
      if (withProblems && (await this.deps.store.update(withProblems, final.status))) {
        this.deps.onChange?.(withProblems);
        final = withProblems;
      }
    }
    if (options.notifyTask !== false) await this.notify(final, final.status === 'stale' ? 'rejected' : 'approved');
    return final;
  }

  /** Rejects a pending set; the task is told the reason. */
  async reject(id: string, reason?: string): Promise<ChangeSet> {
    const rejected = rejectChangeSet(await this.pending(id), reason);
    await this.store(rejected, 'pending');
    this.deps.logger.info('ACTION', `change set ${id} rejected: ${rejected.reason ?? ''}`);
    await this.notify(rejected, 'rejected');
    return rejected;
  }

  /**
   * Withdraws a pending set of a task that was stopped (Cancel, Stop): rejected with the
   * reason and the task not woken, since nothing waits for the outcome any more. Without this, a
   * later Approve would change files behind a task that is gone.
   */
  async withdraw(id: string, reason: string): Promise<ChangeSet> {
    const withdrawn = rejectChangeSet(await this.pending(id), reason);
    await this.store(withdrawn, 'pending');
    this.deps.logger.info('ACTION', `change set ${id} withdrawn: ${reason}`);
    return withdrawn;
  }

  /** Includes or excludes one file of a pending set. */
  async decideFile(id: string, path: string, decision: FileDecision): Promise<ChangeSet> {
    const updated = decideFile(await this.pending(id), path, decision);
    await this.store(updated, 'pending');
    return updated;
  }

  private async recheck(changeSet: ChangeSet): Promise<string | undefined> {
    const check = this.deps.recheck;
    if (!check) return undefined;
    const reasons: string[] = [];
    for (const file of changeSet.files.filter((f) => f.decision !== 'reject')) {
      for (const path of file.newPath !== undefined ? [file.path, file.newPath] : [file.path]) {
        const reason = await check(path).catch((error: unknown) => `${path} cannot be checked (${(error as Error).message})`);
        if (reason !== undefined) reasons.push(reason);
      }
    }
    return reasons.length ? reasons.join('; ') : undefined;
  }

  private async pending(id: string): Promise<ChangeSet> {
    const changeSet = await this.deps.store.load(id);
    if (!changeSet) throw new DecisionError(`There is no proposed change ${id}; it may have been decided and cleared already.`);
    if (changeSet.status !== 'pending') throw new DecisionError(`Change set ${id} is already ${changeSet.status}; only a pending change can be decided.`);
    return changeSet;
  }

  private async store(changeSet: ChangeSet, expected: ChangeSetStatus): Promise<void> {
    if (!(await this.deps.store.update(changeSet, expected))) {
      throw new DecisionError(`Change set ${changeSet.id} was decided elsewhere in the meantime (another window or the palette); nothing more was done.`);
    }
    this.deps.onChange?.(changeSet);
  }

  private async notify(changeSet: ChangeSet, decision: ApprovalPayload['decision']): Promise<void> {
    if (changeSet.taskId.startsWith(PERSON_PROPOSAL_PREFIX)) return;
    const payload: ApprovalPayload = {
      approvalId: changeSet.id,
      decision,
      note: describeOutcome(changeSet),
      ...(changeSet.status === 'stale' && changeSet.staleFiles?.length ? { stale: changeSet.staleFiles } : {}),
    };
    await this.deps.triggers.emit({
      source: 'approval',
      sessionId: changeSet.sessionId,
      priority: USER_PRIORITY,
      payload,
      dedupKey: `approval:${changeSet.id}`,
    });
  }
}
