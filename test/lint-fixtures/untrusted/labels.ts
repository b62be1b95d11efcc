// Linted on purpose by test/unit/untrustedText.test.ts: only the lines marked "reported" may be.
import * as vscode from 'vscode';
import { forLabel, forMarkdown, forModalDetail, forTooltip } from '../../../src/core/security/surfaceText';

interface Chore {
  name: string;
  id: string;
  status: 'running' | 'done';
  runs: number;
  startedAt: number;
}

export async function show(chore: Chore, chores: Chore[], reason: string): Promise<void> {
  const raw = new vscode.TreeItem(chore.name); // reported
  raw.description = `next ${chore.id}`; // reported
  raw.tooltip = reason; // reported
  raw.tooltip = new vscode.MarkdownString(`- ${reason}`); // reported
  const bar = vscode.window.createStatusBarItem();
  bar.text = `$(alert) ${chore.name}`; // reported
  await vscode.window.showQuickPick(chores.map((c) => ({ label: c.name, id: c.id }))); // reported
  await vscode.window.showQuickPick([{ label: 'Blank', detail: reason }]); // reported
  await vscode.window.showWarningMessage('Run it?', { modal: true, detail: reason }); // reported
  const pick = vscode.window.createQuickPick();
  pick.items = chores.map((c) => ({ label: forLabel(c.name), description: c.id })); // reported
  await vscode.window.showInputBox({ title: `Value of ${chore.name}`, prompt: reason }); // reported
  const later: Array<vscode.QuickPickItem & { id: string }> = [];
  for (const c of chores) later.push({ label: c.name, id: c.id }); // reported
  later.push({ label: forLabel(chore.name), description: chore.status, id: chore.id });

  const item = new vscode.TreeItem(`${forLabel(chore.name)} `);
  item.description = vscode.l10n.t('{0} runs · {1} · started {2}', chore.runs, chore.status, new Date(chore.startedAt).toLocaleString());
  item.tooltip = `${forLabel(chore.name)}\n${forTooltip(reason)}`;
  item.tooltip = new vscode.MarkdownString(chores.map((c) => `- ${forMarkdown(c.name)}`).join('\n'));
  const shown = forLabel(reason);
  item.label = chore.runs > 1 ? shown : vscode.l10n.t('once');
  bar.text = vscode.l10n.t('$(sync~spin) Tasklane: {0} working', chore.runs);
  await vscode.window.showQuickPick(chores.map((c) => ({ label: forLabel(c.name), description: c.status })));
  await vscode.window.showWarningMessage('Run it?', { modal: true, detail: forModalDetail(reason) });
  await vscode.window.showInputBox({ title: vscode.l10n.t('Value of {0}', forLabel(chore.name)), prompt: 'Paste it' });
}
