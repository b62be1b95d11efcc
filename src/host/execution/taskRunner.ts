import * as vscode from 'vscode';
import type { CommandResult } from '../../core/approval/commands/commandApproval';
import { pickTask } from '../../core/approval/commands/taskPick';
import { hiddenVariableNames } from '../../core/security/redact';

/**
 * Runs a VS Code task and resolves with the exit code from onDidEndTaskProcess. The task's output
 * stays in its own terminal: the task API does not expose it.
 *
 * The name is matched by source and label (pickTask): a plain `build` is the workspace's own
 * tasks.json task of that label, never whichever provider (npm, gulp, an extension) happens to
 * offer one; another provider's task is named `npm: build`. So approving or allowlisting
 * `task:build` covers exactly the definition the person can read in .vscode/tasks.json.
 */
export async function runVsCodeTask(name: string, options: { timeoutMs: number; signal?: AbortSignal; hiddenEnv?: readonly string[] }): Promise<CommandResult> {
  const started = Date.now();
  const tasks = await vscode.tasks.fetchTasks();
  const picked = pickTask(tasks, name);
  if (typeof picked === 'string') {
    return { exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 0, error: picked };
  }
  const task = picked;
  withoutHiddenVariables(task, options.hiddenEnv ?? []);
  return new Promise<CommandResult>((resolve) => {
    let execution: vscode.TaskExecution | undefined;
    let settled = false;
    let timedOut = false;
    let cancelled = false;
    const subscriptions: vscode.Disposable[] = [];
    const finish = (exitCode: number | null, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      subscriptions.forEach((s) => s.dispose());
      resolve({
        exitCode: timedOut || cancelled ? null : exitCode,
        output: '',
        truncatedChars: 0,
        timedOut,
        cancelled,
        durationMs: Date.now() - started,
        error,
      });
    };
    const mine = (e: { execution: vscode.TaskExecution }) => (execution ? e.execution === execution : e.execution.task.name === task.name);
    let processId: number | undefined;
    subscriptions.push(
      vscode.tasks.onDidStartTaskProcess((e) => {
        if (mine(e)) processId = e.processId;
      }),
      vscode.tasks.onDidEndTaskProcess((e) => mine(e) && finish(e.exitCode ?? null)),
      // A task without a process (a custom execution) ends without an exit code.
      vscode.tasks.onDidEndTask((e) => mine(e) && setTimeout(() => finish(null), 500)),
    );
    const timer = setTimeout(() => {
      timedOut = true;
      execution?.terminate();
      finish(null);
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      execution?.terminate();
      // terminate() ends the task's shell; its process group goes too, so nothing it started survives.
      if (processId !== undefined && process.platform !== 'win32') {
        try {
          process.kill(-processId, 'SIGKILL');
        } catch {
          // not a group leader, or already gone
        }
      }
      finish(null);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    vscode.tasks.executeTask(task).then(
      (started) => (execution = started),
      (error: unknown) => finish(null, `VS Code could not start the task: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
}

/**
 * Blanks the model keys (and the user's hidden names) in a shell or process task's environment:
 * VS Code merges `options.env` over its own environment and cannot unset a variable, so the
 * names present are set to the empty string.
 */
function withoutHiddenVariables(task: vscode.Task, hidden: readonly string[]): void {
  const names = hiddenVariableNames(process.env, hidden);
  const execution = task.execution;
  if (names.length === 0 || !(execution instanceof vscode.ShellExecution || execution instanceof vscode.ProcessExecution)) return;
  execution.options = { ...execution.options, env: { ...execution.options?.env, ...Object.fromEntries(names.map((n) => [n, ''])) } };
}
