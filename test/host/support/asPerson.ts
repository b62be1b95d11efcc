import * as vscode from 'vscode';
import { pressDialogButton } from './dialogs';

/**
 * Runs a Tasklane command that decides something for the person (`tasklane.approve <id>`,
 * `tasklane.enableChore <id> <hash>`, `tasklane.trustMcpServer <name> <hash>`,
 * `tasklane.newChore {…}`, `tasklane.sendMessage <text>`) and presses `button` on the
 * confirmation it shows: called with arguments, these commands still ask (docs/SECURITY.md).
 * Returns the command's result.
 */
export async function asPerson<T>(run: () => Thenable<T>, button: string): Promise<T> {
  const [result] = await Promise.all([run(), pressDialogButton(button)]);
  return result;
}

/** `tasklane.sendMessage` as the person: the text is sent once they pressed Send. Returns the session id. */
export function sendMessage(text: string, route?: { sessionId?: string; replyToTaskId?: string }): Promise<string> {
  return asPerson(() => vscode.commands.executeCommand<string>('tasklane.sendMessage', text, ...(route ? [route] : [])), 'Send');
}
