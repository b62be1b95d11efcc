import * as vscode from 'vscode';
import { forLabel } from '../core/security/surfaceText';
import { notice } from './notice';
import { showInvisible } from '../shared/visibleText';
import type { Agent } from '../core/engine/agent';
import type { ConsentDialogs } from './consentDialog';

/**
 * `tasklane.reviewMemory`: the person's review of the notes `remember` proposed. Only the picked
 * notes enter MEMORY.md (and so every later task's prompt); the others are dropped. Dismissing
 * the pick leaves them waiting. A caller passing the notes to accept still asks the person in a
 * modal that shows each of them. Returns the accepted notes, or undefined.
 */
export function registerMemoryReview(ready: Promise<Agent>, dialogs: ConsentDialogs): vscode.Disposable {
  return vscode.commands.registerCommand('tasklane.reviewMemory', async (accept?: unknown) => {
    const agent = await ready;
    const pending = await agent.memoryProposals();
    if (Array.isArray(accept)) {
      const chosen = accept.filter((n): n is string => typeof n === 'string');
      // Notes a caller (another extension, an agent tool) picks are not the person's pick: they
      // enter every later task's prompt, so the person reads them and says yes.
      const entering = chosen.filter((n) => pending.includes(n));
      if (entering.length && !(await confirmNotes(dialogs, entering, pending.length - entering.length))) return undefined;
      await agent.settleMemoryProposals(chosen);
      return chosen.filter((n) => pending.includes(n));
    }
    if (pending.length === 0) {
      void vscode.window.showInformationMessage(notice`Tasklane: no memory notes are waiting for review.`);
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      pending.map((note) => ({ label: forLabel(note), note })),
      {
        canPickMany: true,
        title: vscode.l10n.t('Tasklane: which notes may enter memory?'),
        placeHolder: vscode.l10n.t('Picked notes go into every future task prompt; the others are discarded'),
        ignoreFocusOut: true,
      },
    );
    if (!picked) return undefined;
    const accepted = picked.map((p) => p.note);
    await agent.settleMemoryProposals(accepted);
    return accepted;
  });
}

/** Asks before notes a caller picked enter memory; `dropped` pending notes are discarded with them. */
function confirmNotes(dialogs: ConsentDialogs, notes: readonly string[], dropped: number): Promise<boolean> {
  const detail = [
    "These notes go into every later task's prompt:",
    ...notes.map((note) => `• ${showInvisible(note)}`),
    ...(dropped ? ['', `The other ${dropped} waiting note(s) are discarded.`] : []),
    '',
    'They were picked by a caller (another extension or an agent tool), not by you.',
  ].join('\n');
  return dialogs.confirm(`Let ${notes.length} note(s) into Tasklane's memory?`, detail, 'Accept', 'memory-notes');
}
