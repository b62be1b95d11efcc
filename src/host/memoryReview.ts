import * as vscode from 'vscode';
import { showInvisible } from '../shared/visibleText';
import type { Agent } from '../core/engine/agent';

/**
 * `tasklane.reviewMemory`: the person's review of the notes `remember` proposed. Only the picked
 * notes enter MEMORY.md (and so every later task's prompt); the others are dropped. Dismissing
 * the pick leaves them waiting. Returns the accepted notes (for scripts and tests), or undefined.
 */
export function registerMemoryReview(ready: Promise<Agent>): vscode.Disposable {
  return vscode.commands.registerCommand('tasklane.reviewMemory', async (accept?: unknown) => {
    const agent = await ready;
    const pending = await agent.memoryProposals();
    if (Array.isArray(accept)) {
      const chosen = accept.filter((n): n is string => typeof n === 'string');
      await agent.settleMemoryProposals(chosen);
      return chosen.filter((n) => pending.includes(n));
    }
    if (pending.length === 0) {
      void vscode.window.showInformationMessage('Tasklane: no memory notes are waiting for review.');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      pending.map((note) => ({ label: showInvisible(note), note })),
      {
        canPickMany: true,
        title: 'Tasklane: which notes may enter memory?',
        placeHolder: 'Picked notes go into every future task prompt; the others are discarded',
        ignoreFocusOut: true,
      },
    );
    if (!picked) return undefined;
    const accepted = picked.map((p) => p.note);
    await agent.settleMemoryProposals(accepted);
    return accepted;
  });
}
