/**
 * The change-set part of the engine (createEngine.ts): the store of proposals, the decider that
 * applies them (with the path guard again at apply time) and the edit actions the model proposes
 * through, with one listener list for every change of a set.
 */
import type { Ledger } from './actions/ledger';
import type { ActionDef } from './actions/types';
import type { ChangeSet } from './approval/changes/changeSet';
import { ChangeSetDecider } from './approval/changes/changeSetDecider';
import { DbChangeSetStore } from './approval/changes/changeSetStore';
import type { ChangeSetStore } from './approval/changes/changeSetStore';
import { createEditActions } from './approval/changes/editActions';
import { RevertibleTasks } from './approval/changes/revertibleTasks';
import { applyTimeGuard } from './approval/paths/editTarget';
import { nodeFs } from './approval/paths/nodeFs';
import { problemsAfterApply } from './codeIntel/problemsAfterApply';
import { emitter } from './emitter';
import type { EditAdapters, EngineAdapters } from './engineAdapters';

/** Windows and macOS (by default) ignore case in paths: the guards compare accordingly. */
const caseInsensitive = process.platform !== 'linux';

/** Change sets: the proposals, their decisions and a listener for every change. */
export interface EngineChangeSets {
  store: ChangeSetStore;
  decider: ChangeSetDecider;
  /** Every stored change of a set (proposed, grown, decided, applied). */
  onDidChange(listener: (changeSet: ChangeSet) => void): { dispose(): void };
  /** Which tasks have applied edits left to undo (Revert edits is offered for these). */
  revertible: RevertibleTasks;
}

export function buildChangeSets(
  adapters: EngineAdapters,
  edits: EditAdapters,
  ledger: Ledger,
  taskChore: (taskId: string) => string | undefined,
): { changeSets: EngineChangeSets; actions: ActionDef[] } {
  const { db, triggers, clock, logger } = adapters;
  const changed = emitter<[ChangeSet]>();
  const store = new DbChangeSetStore(db, clock, (error) => logger.error('STORE', error.message));
  const decider = new ChangeSetDecider({
    store,
    files: edits.files,
    applier: edits.applier,
    ledger,
    durable: () => db.durable,
    triggers,
    logger,
    onChange: changed.fire,
    // The guard again at apply time: a folder swapped for a link since the proposal is refused.
    recheck: applyTimeGuard(edits.root, nodeFs, { caseInsensitive, ...(edits.roots ? { roots: edits.roots } : {}) }),
    ...(adapters.codeIntel ? { problems: problemsAfterApply(adapters.codeIntel) } : {}),
  });
  const actions = edits.offered
    ? createEditActions({
        root: edits.root,
        ...(edits.roots ? { roots: edits.roots } : {}),
        fs: nodeFs,
        caseInsensitive,
        files: edits.files,
        store,
        decider,
        clock,
        policy: edits.policy,
        taskChore,
        ...(edits.blocked ? { editBlocked: edits.blocked } : {}),
        // The language server's rename, proposed like any edit (VS Code; the command line has none).
        ...(adapters.codeIntel?.rename ? { rename: adapters.codeIntel.rename.bind(adapters.codeIntel) } : {}),
        onProposed: (changeSet) => changed.fire(changeSet),
      })
    : [];
  // Every change of a set (applied, rejected, withdrawn) is a task's answer to read again; a revert
  // (host-side) refreshes it itself, before its reply, so the block never offers what is undone.
  const revertible = new RevertibleTasks(store);
  changed.on((changeSet) => void revertible.refresh(changeSet.taskId).catch((error: Error) => logger.error('STORE', error.message)));
  return { changeSets: { store, decider, onDidChange: changed.on, revertible }, actions };
}
