import * as vscode from 'vscode';
import { forLabel } from '../../core/security/surfaceText';
import { notice } from '../notice';
import { choresFilePath } from '../../core/chores/choreFile';
import { previewMarkdown } from '../../core/chores/chorePreview';
import type { ChorePreview, ModelCostContext } from '../../core/chores/chorePreview';
import type { ChoreHost } from './choreHost';
import { ReadOnlyDocuments } from '../readOnlyDocuments';

/**
 * `tasklane.previewChore [id]` and a "Preview" code lens on each chore in .tasklane/chores.yaml:
 * the next fires of a cron chore in its time zone and a dry run (prompt, trigger context, action
 * sets, budgets) shown as a Markdown document. Nothing runs and no model is called; the command
 * returns the preview (scripts, tests). Any valid chore can be previewed, enabled or not: looking
 * is how a person decides whether to enable one that came with the repository.
 */
export function registerChorePreview(
  ready: Promise<ChoreHost>,
  /** The model chores run on and the person's prices: an unpriced model's preview says its cost will be estimated. */
  modelCost: () => ModelCostContext | undefined = () => undefined,
): vscode.Disposable[] {
  // A read-only document, not an untitled one: closing it never asks to save a preview.
  const documents = new ReadOnlyDocuments(PREVIEW_SCHEME);
  return [
    documents,
    vscode.languages.registerCodeLensProvider({ pattern: `**/${choresFilePath}` }, new ChoreCodeLenses(ready)),
    vscode.commands.registerCommand('tasklane.previewChore', async (id?: unknown): Promise<ChorePreview | undefined> => {
      const host = await ready;
      let choreId = typeof id === 'string' && id ? id : undefined;
      if (!choreId) {
        const chores = host.validChores();
        if (!chores.length) {
          void vscode.window.showInformationMessage(notice`Tasklane: there is no valid chore to preview in .tasklane/chores.yaml.`);
          return undefined;
        }
        choreId = (
          await vscode.window.showQuickPick(
            chores.map((c) => ({ label: forLabel(c.name), description: forLabel(c.id), id: c.id })),
            { title: vscode.l10n.t('Tasklane: preview which chore?') },
          )
        )?.id;
      }
      if (!choreId) return undefined;
      const found = host.preview(choreId, 5, modelCost());
      if (!found) {
        void vscode.window.showWarningMessage(
          notice`Tasklane: there is no valid chore "${choreId}" in .tasklane/chores.yaml; check its id and the problems shown on the file.`,
        );
        return undefined;
      }
      await documents.show(choreId, previewMarkdown(found.chore, found.preview), { preview: true, viewColumn: vscode.ViewColumn.Beside });
      return found.preview;
    }),
  ];
}

/** Scheme of the read-only preview documents. */
const PREVIEW_SCHEME = 'tasklane-chore-preview';

/** One "Preview next fires and dry run" lens on the `id:` line of each valid chore. */
// VS Code asks again on every edit of the file, which is also when chores reload: no change event needed.
class ChoreCodeLenses implements vscode.CodeLensProvider {
  constructor(private readonly ready: Promise<ChoreHost>) {}

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const host = await this.ready;
    const valid = new Map(host.validChores().map((c) => [c.id, c]));
    const lenses: vscode.CodeLens[] = [];
    for (let line = 0; line < document.lineCount; line++) {
      const match = /^\s*(?:-\s+)?id:\s*["']?([A-Za-z0-9_-]+)["']?\s*(?:#.*)?$/.exec(document.lineAt(line).text);
      const chore = match && valid.get(match[1]);
      if (!chore) continue;
      const range = new vscode.Range(line, 0, line, 0);
      lenses.push(new vscode.CodeLens(range, { title: 'Preview next fires and dry run', command: 'tasklane.previewChore', arguments: [chore.id] }));
    }
    return lenses;
  }
}
