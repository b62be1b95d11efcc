/**
 * The edit actions (docs/DESIGN.md §6): create_file, replace_in_file, write_file, delete_file,
 * rename_file and, where the host has a language server's rename, rename_symbol. None of them writes: each guards its paths, folds its operation into the turn's
 * proposed change set (several edits in one turn become ONE set, approved and undone as a unit),
 * stores it durably, and then either applies it at once (autoApproveEdits and nothing sensitive)
 * or makes the task wait for the user's decision like for a reply.
 */
import { ACTION_SETS } from '../../actions/actionSets';
import { defineAction } from '../../actions/types';
import type { ActionContext, ActionDef, TurnEffects } from '../../actions/types';
import type { Clock, WorkspaceReader } from '../../ports';
import { createFileInputSchema, deleteFileInputSchema, renameFileInputSchema, replaceInFileInputSchema, writeFileInputSchema } from './changeSet';
import type { ChangeSet, EditOperation } from './changeSet';
import { classifyChangeSet, describeOutcome } from './changeSetReview';
import type { ChangeSetDecider } from './changeSetDecider';
import type { ChangeSetStore } from './changeSetStore';
import { inspectEditTarget } from '../paths/editTarget';
import type { EditTarget } from '../paths/editTarget';
import type { WorkspaceFsPort } from '../paths/fsPort';
import { resolveWorkspacePath } from '../paths/pathGuard';
import { joinRootPath, splitRootPath } from '../paths/workspaceRoots';
import type { WorkspaceRoot } from '../paths/workspaceRoots';
import { EditError, proposeChangeSet } from './proposeChangeSet';
import { renameSymbolAction } from './renameSymbol';
import type { CodeLocation, FileRename } from '../../codeIntel/codeIntelPort';
import { classifyResolvedEdit, uniqueReasons } from '../paths/sensitivePaths';
import { approvalReasonsWords } from '../../../shared/approvalReasons';
import type { ApprovalReason } from '../../../shared/approvalReasons';
import type { EditClassification, EditPolicyOptions } from '../paths/sensitivePaths';

/** What the edit actions need; the host builds it once. */
export interface EditActionDeps {
  /** Absolute path of the workspace root (the guard resolves against it). */
  root: string;
  /**
   * Every folder of a multi-root workspace, first = `root` (src/core/approval/paths/workspaceRoots.ts):
   * paths are then `<folder name>/<path>` and each is guarded against its own folder. Absent or
   * one folder: paths are relative to `root`, as always.
   */
  roots?: readonly WorkspaceRoot[];
  fs: WorkspaceFsPort;
  files: WorkspaceReader;
  store: ChangeSetStore;
  decider: ChangeSetDecider;
  clock: Clock;
  /** Read at each edit, so a settings change applies at once. */
  policy: () => EditPolicyOptions;
  /**
   * The chore a task works for (its own chore run, or by descent: a task a chore task started),
   * else undefined. Such proposals never apply unattended, whatever autoApproveEdits says.
   */
  taskChore: (taskId: string) => string | undefined;
  /** Undefined when edits are allowed; otherwise why not (Restricted Mode), written for the model. */
  editBlocked?: () => string | undefined;
  caseInsensitive?: boolean;
  /** Called when a set is proposed or grows, so the sidebar can show or patch its card. */
  onProposed?: (changeSet: ChangeSet, classification: EditClassification) => void;
  newId?: () => string;
  /** The language server's rename (VS Code); absent (the command line): no rename_symbol. */
  rename?: (at: CodeLocation, newName: string) => Promise<FileRename[]>;
}

/** The set a turn is building: later edits of the same turn join it. */
interface TurnBatch {
  id: string;
  createdAt: number;
  operations: EditOperation[];
  /** Why the set asks (sensitive aliases, chore runs), gathered over its edits. */
  askReasons: ApprovalReason[];
}

/** One line per file, for the wait notice and the model. */
export function summariseChangeSet(changeSet: ChangeSet): string {
  const files = changeSet.files.map((f) => `${f.kind} ${f.kind === 'rename' ? `${f.path} → ${f.newPath}` : f.path} (+${f.added} −${f.removed})`);
  return `${files.length === 1 ? '1 file' : `${files.length} files`}: ${files.join(', ')}`;
}

/** Builds the five edit actions over one set of deps (one per extension host). */
export function createEditActions(deps: EditActionDeps): ActionDef[] {
  // Keyed by the turn's effects recorder: one per turn, gone with it.
  const batches = new WeakMap<TurnEffects, TurnBatch>();

  const guard = async (requested: string): Promise<{ path: string; target: EditTarget }> => {
    const roots = deps.roots && deps.roots.length > 0 ? deps.roots : [{ name: '', path: deps.root }];
    const split = splitRootPath(roots, requested);
    if ('error' in split) throw new EditError(split.error);
    const { root } = split;
    const resolved = await resolveWorkspacePath(root.path, split.relative === '' && roots.length > 1 ? '.' : split.relative, deps.fs, {
      caseInsensitive: deps.caseInsensitive,
    });
    if (!resolved.ok) throw new EditError(resolved.reason);
    if (resolved.relativePath === '')
      throw new EditError(`${requested} is a workspace folder, not a file; give a file path such as ${joinRootPath(roots, root, 'src/index.ts')}`);
    // The policy judges the folder-relative spellings (`.vscode/tasks.json` is sensitive in any
    // folder); the reader and applier get the workspace path, prefixed when there are several.
    return {
      path: joinRootPath(roots, root, resolved.relativePath),
      target: await inspectEditTarget(root.path, resolved, deps.fs, { caseInsensitive: deps.caseInsensitive }),
    };
  };

  async function propose(operations: readonly EditOperation[], ctx: ActionContext): Promise<string> {
    if (!ctx.taskId) throw new EditError('Edits are proposed by tasks; start a task with task_start and edit from there.');
    const blocked = deps.editBlocked?.();
    if (blocked) throw new EditError(blocked);
    const policy = deps.policy();
    const guardedOps: EditOperation[] = [];
    const targets: EditTarget[] = [];
    for (const operation of operations) {
      const source = await guard(operation.path);
      const guarded: EditOperation = { ...operation, path: source.path };
      targets.push(source.target);
      if (operation.op === 'rename_file') {
        const target = await guard(operation.newPath);
        (guarded as Extract<EditOperation, { op: 'rename_file' }>).newPath = target.path;
        targets.push(target.target);
      }
      guardedOps.push(guarded);
    }
    const reasons = targets.map((t) => classifyResolvedEdit(t, policy)).flatMap((c) => (c.decision === 'ask' ? c.reasons : []));
    const chore = deps.taskChore(ctx.taskId) !== undefined;
    if (chore) reasons.push({ code: 'choreRun' });

    let batch = batches.get(ctx.turn);
    let changeSet = await build(batch, guardedOps, ctx);
    if (batch) {
      const grown: ChangeSet = { ...changeSet, createdAt: batch.createdAt };
      if (await deps.store.update(grown, 'pending')) {
        batch.operations.push(...guardedOps);
        batch.askReasons.push(...reasons);
        changeSet = grown;
      } else {
        // The user decided the first part while this turn was still running: start a new set.
        batch = undefined;
        changeSet = await build(undefined, guardedOps, ctx);
      }
    }
    const classification = merge(classifyChangeSet(changeSet, policy), [...(batch?.askReasons ?? []), ...(batch ? [] : reasons)]);

    if (!batch && classification.decision === 'auto') {
      await deps.store.insert(changeSet);
      deps.onProposed?.(changeSet, classification);
      const applied = await deps.decider.approve(changeSet.id, { notifyTask: false });
      return `${describeOutcome(applied)}${applied.status === 'applied' ? ' (auto-approved by tasklane.approval.autoApproveEdits)' : ''}`;
    }
    if (!batch) {
      await deps.store.insert(changeSet);
      batch = { id: changeSet.id, createdAt: changeSet.createdAt, operations: [...guardedOps], askReasons: reasons };
      batches.set(ctx.turn, batch);
    }
    deps.onProposed?.(changeSet, classification);
    const summary = summariseChangeSet(changeSet);
    ctx.turn.needsApproval(changeSet.id, summary);
    return (
      `Proposed change set ${changeSet.id} (${summary}); nothing is written until the user approves it. ` +
      'Other edits in this same turn join this change set. After this turn you will be told the decision; do not assume the change is applied before that.'
    );
  }

  async function build(batch: TurnBatch | undefined, operations: readonly EditOperation[], ctx: ActionContext): Promise<ChangeSet> {
    return proposeChangeSet(
      { taskId: ctx.taskId as string, sessionId: ctx.sessionId, operations: [...(batch?.operations ?? []), ...operations] },
      { files: deps.files, clock: deps.clock, caseInsensitive: deps.caseInsensitive, newId: batch ? () => batch.id : deps.newId },
    );
  }

  const common = {
    // Only `files`: a task or chore without it is neither offered nor able to run an edit (actionSets.ts).
    actionSets: [ACTION_SETS.files],
    // Sequential: edits of one turn compose over each other into one change set.
    parallelizable: false,
    // Proposing writes nothing; the apply (auto or approved) records its own ledger intent and outcome.
    irreversible: false,
    approval: 'policy' as const,
  };
  const note = ' Writes nothing by itself: edits are proposed to the user for approval (several edits in one turn form one change set).';

  const actions = [
    defineAction({
      name: 'create_file',
      description: `Create a new file with the given content (fails if it exists).${note}`,
      input: createFileInputSchema,
      ...common,
      run: (input, ctx) => propose([{ op: 'create_file', ...input }], ctx),
    }),
    defineAction({
      name: 'replace_in_file',
      description: `Change part of a file: each edit replaces an exact excerpt (occurring exactly once) with new text, in order. Prefer it over write_file for small changes.${note}`,
      input: replaceInFileInputSchema,
      ...common,
      run: (input, ctx) => propose([{ op: 'replace_in_file', ...input }], ctx),
    }),
    defineAction({
      name: 'write_file',
      description: `Replace the whole content of a file (or create it).${note}`,
      input: writeFileInputSchema,
      ...common,
      run: (input, ctx) => propose([{ op: 'write_file', ...input }], ctx),
    }),
    defineAction({
      name: 'delete_file',
      description: `Delete a file.${note}`,
      input: deleteFileInputSchema,
      ...common,
      run: (input, ctx) => propose([{ op: 'delete_file', ...input }], ctx),
    }),
    defineAction({
      name: 'rename_file',
      description: `Rename or move a file to a new path that does not exist yet.${note}`,
      input: renameFileInputSchema,
      ...common,
      run: (input, ctx) => propose([{ op: 'rename_file', ...input }], ctx),
    }),
  ];
  // The language server's rename, proposed like the edits above (one set, the same card).
  if (deps.rename) actions.push(renameSymbolAction({ rename: deps.rename, files: deps.files, guard, propose, common, note }));
  return actions;
}

function merge(base: EditClassification, extra: readonly ApprovalReason[]): EditClassification {
  const reasons = uniqueReasons([...(base.decision === 'ask' ? base.reasons : []), ...extra]);
  return reasons.length === 0 ? { decision: 'auto' } : { decision: 'ask', reason: approvalReasonsWords(reasons), reasons };
}
