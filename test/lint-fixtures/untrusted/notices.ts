// Linted on purpose by test/unit/untrustedText.test.ts: lines 8, 9, 10 and 11 must be reported.
import * as vscode from 'vscode';
import { forNotification, notice } from '../../../src/core/security/surfaceText';

export function show(id: string, error: Error): void {
  const fixed = 'Tasklane: done.';
  const built = `Tasklane: no run ${id}.`;
  void vscode.window.showWarningMessage(`Tasklane: no run ${id}.`);
  void vscode.window.showErrorMessage(error.message);
  void vscode.window.showInformationMessage(built);
  void vscode.window.showInformationMessage(id ? 'a' : `b ${id}`);
  void vscode.window.showWarningMessage(notice`Tasklane: no run ${id}.`);
  void vscode.window.showErrorMessage(forNotification(error.message));
  void vscode.window.showInformationMessage(fixed);
  void vscode.window.showInformationMessage(id ? 'Tasklane: a.' : notice`Tasklane: b ${id}.`, { modal: true }, 'Open');
}
