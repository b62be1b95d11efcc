import * as vscode from 'vscode';
import type { ChoreHostMessage, ChoreWebviewMessage } from '../../shared/choreProtocol';
import type { RunTraceFollower } from './runTraceFollower';
import { notice } from '../notice';

/** What the chores section's messages do (ChoreHost's operations). */
export interface ChoreOperations {
  runNow(choreId: string): Promise<string | undefined>;
  enable(choreId: string, hash: string): Promise<void>;
  disable(choreId: string): Promise<boolean>;
  /** Says what the chore has spent against its caps. */
  resume(choreId: string): Promise<string>;
  fileUri(): vscode.Uri | undefined;
}

/** A message from the sidebar's chores section, carried out by the host's own operations. */
export async function handleChoreMessage(
  host: ChoreOperations,
  trace: Pick<RunTraceFollower, 'openRun'>,
  message: ChoreWebviewMessage,
): Promise<ChoreHostMessage | undefined> {
  switch (message.type) {
    case 'chore.runNow':
      await host.runNow(message.id);
      return undefined;
    case 'chore.openRun':
      return trace.openRun(message.runId);
    case 'chore.new':
      await vscode.commands.executeCommand('tasklane.newChore');
      return undefined;
    case 'chore.enable':
      await host.enable(message.id, message.hash);
      return undefined;
    case 'chore.disable':
      await host.disable(message.id);
      return undefined;
    case 'chore.resume':
      void vscode.window.showInformationMessage(notice`Tasklane: ${await host.resume(message.id)}`);
      return undefined;
    case 'chore.openFile': {
      const uri = host.fileUri();
      if (uri) await vscode.window.showTextDocument(uri);
      return undefined;
    }
  }
}
