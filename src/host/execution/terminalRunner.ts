import * as vscode from 'vscode';
import type { CommandResult } from '../../core/approval/commands/commandApproval';
import { startChild } from './processRunner';

export { BoundedOutput } from './processRunner';

/**
 * Runs one shell command in a terminal the user can see: a Pseudoterminal mirrors the process's
 * output as it comes, Ctrl+C or closing the terminal cancels it, and the caller gets the exit code
 * and the bounded output. The process starts at once (not when the terminal is first shown), so a
 * hidden panel cannot stall the agent. Stop / Cancel of the task (the signal) kills its process
 * group, and the terminal says so.
 */
export function runInTerminal(
  command: string,
  options: { cwd: string; timeoutMs: number; signal?: AbortSignal; hiddenEnv?: readonly string[] },
): Promise<CommandResult> {
  const writeEmitter = new vscode.EventEmitter<string>();
  const closeEmitter = new vscode.EventEmitter<number | void>();
  const pendingOutput: string[] = [];
  let opened = false;
  const show = (text: string) => {
    const crlf = text.replace(/\r?\n/g, '\r\n');
    if (opened) writeEmitter.fire(crlf);
    else pendingOutput.push(crlf);
  };
  show(`$ ${command}\n`);
  const run = startChild(command, {
    ...options,
    onOutput: show,
    onStop: (reason) => {
      if (reason === 'timeout') show(`\n[Tasklane stopped it after ${Math.round(options.timeoutMs / 1000)} s]\n`);
      else if (reason === 'stopped') show('\n[Tasklane stopped it: the task was stopped or cancelled]\n');
    },
  });
  const pty: vscode.Pseudoterminal = {
    onDidWrite: writeEmitter.event,
    onDidClose: closeEmitter.event,
    open: () => {
      opened = true;
      for (const text of pendingOutput.splice(0)) writeEmitter.fire(text);
    },
    close: () => run.cancel(),
    handleInput: (data) => {
      if (data === '\x03') {
        show('^C\n');
        run.cancel();
      }
    },
  };
  const terminal = vscode.window.createTerminal({ name: `Tasklane: ${command.slice(0, 40)}`, pty, isTransient: true });
  terminal.show(true);
  return run.result.then((result) => {
    show(result.error ? `\n[could not run: ${result.error}]\n` : `\n[exit code ${result.exitCode ?? 'none'}]\n`);
    return result;
  });
}
