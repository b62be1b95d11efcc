import * as vscode from 'vscode';
import type { CommandResult } from '../../core/approval/commandApproval';

/**
 * Runs a VS Code task by name (its label; `source: label` also matches) and resolves with the
 * exit code from onDidEndTaskProcess. The task's output stays in its own terminal: the task API
 * does not expose it.
 */
export async function runVsCodeTask(name: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CommandResult> {
  const started = Date.now();
  const tasks = await vscode.tasks.fetchTasks();
  const task = tasks.find((t) => t.name === name) ?? tasks.find((t) => `${t.source}: ${t.name}` === name);
  if (!task) {
    const names = [...new Set(tasks.map((t) => t.name))].slice(0, 30).join(', ') || 'none';
    return { exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 0, error: `there is no VS Code task named '${name}'; available tasks: ${names}` };
  }
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
      resolve({ exitCode: timedOut || cancelled ? null : exitCode, output: '', truncatedChars: 0, timedOut, cancelled, durationMs: Date.now() - started, error });
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
