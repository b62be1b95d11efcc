import * as vscode from 'vscode';

/** Something that owns approvals (change sets, commands) the palette commands can decide. */
export interface ApprovalOwner {
  owns(id: string): Promise<boolean>;
  /** Its oldest pending approval, if any. */
  oldestPending(): Promise<{ id: string; createdAt: number } | undefined>;
  approve(id: string): Promise<unknown>;
  reject(id: string, reason?: string): Promise<unknown>;
}

/**
 * `tasklane.approve` / `tasklane.reject` (docs/DESIGN.md §9): an optional approval id, default the
 * oldest pending approval of any owner. Reject from the palette (no arguments) asks for an
 * optional reason, which the task is told; a caller passing an id passes the reason second.
 * Each returns what its owner's decision returned (undefined when there was nothing to decide).
 * The owners exist once the store is open; the commands wait for them (`ready`).
 */
export function registerApprovalCommands(ready: Promise<readonly ApprovalOwner[]>): vscode.Disposable[] {
  const idOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

  async function target(id: string | undefined, verb: string): Promise<{ owner: ApprovalOwner; id: string } | undefined> {
    const owners = await ready;
    if (id) {
      for (const owner of owners) if (await owner.owns(id)) return { owner, id };
      void vscode.window.showInformationMessage(`Tasklane: there is no approval ${id} to ${verb}.`);
      return undefined;
    }
    let oldest: { owner: ApprovalOwner; id: string; createdAt: number } | undefined;
    for (const owner of owners) {
      const pending = await owner.oldestPending();
      if (pending && (!oldest || pending.createdAt < oldest.createdAt)) oldest = { owner, ...pending };
    }
    if (!oldest) void vscode.window.showInformationMessage(`Tasklane: nothing is waiting for approval, so there is nothing to ${verb}.`);
    return oldest;
  }

  return [
    vscode.commands.registerCommand('tasklane.approve', async (id?: unknown) => {
      const found = await target(idOf(id), 'approve');
      return found ? found.owner.approve(found.id) : undefined;
    }),
    vscode.commands.registerCommand('tasklane.reject', async (id?: unknown, reason?: unknown) => {
      const found = await target(idOf(id), 'reject');
      if (!found) return undefined;
      let why = typeof reason === 'string' ? reason : undefined;
      if (id === undefined && reason === undefined) {
        why = await vscode.window.showInputBox({
          title: 'Tasklane: reject the proposed change',
          prompt: 'Why? (optional; the task is told, so it can do better)',
          ignoreFocusOut: true,
        });
        if (why === undefined) return undefined; // Escape: the user changed their mind
      }
      return found.owner.reject(found.id, why);
    }),
  ];
}
