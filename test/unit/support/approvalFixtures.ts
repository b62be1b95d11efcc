import type { ChangeSet } from '../../../src/core/approval/changes/changeSet';
import type { CommandApproval } from '../../../src/core/approval/commands/commandApproval';
import { approveChangeSet } from '../../../src/core/approval/changes/changeSetReview';
import type { WorkspaceReader } from '../../../src/core/ports';

/** A pending change set modifying each of `paths` by one line: the shape an approval card is made from. */
export function pendingChangeSet(paths: readonly string[]): ChangeSet {
  return {
    id: 'cs-1',
    taskId: 't-1',
    sessionId: 's-1',
    createdAt: 1,
    status: 'pending',
    files: paths.map((path) => ({ path, kind: 'modify', added: 1, removed: 1, beforeHash: 'h', afterHash: 'h' })),
  } as unknown as ChangeSet;
}

/**
 * A change set gone stale as the core finds it when approved: of its files １, ２ and ３, one was
 * modified, one deleted and one created where none was since the proposal.
 */
export async function staleChangeSet(): Promise<ChangeSet> {
  const onDisk: Record<string, string | null> = { '１': '７', '２': null, '３': '８' };
  const proposed = pendingChangeSet(['１', '２', '３']);
  proposed.files[2] = { ...proposed.files[2]!, before: null };
  return (await approveChangeSet(proposed, { read: async (path: string) => onDisk[path] ?? null } as unknown as WorkspaceReader)).changeSet;
}

/** A pending command approval, its values written without letters unless `patch` says otherwise. */
export function commandApproval(patch: Partial<CommandApproval>): CommandApproval {
  return { id: 'a-1', taskId: 't-1', sessionId: 's-1', kind: 'command', command: '１', reason: '２', timeoutMs: 1, status: 'pending', createdAt: 1, ...patch };
}
