import * as vscode from 'vscode';

/** What Tasklane's `activate` returns (the part host suites rely on). */
export interface TasklaneApi {
  /** `context.storageUri` as a string (a URI, or a path), undefined without a workspace. */
  storageUri: string | undefined;
  /** Settles once services are built and persisted state is restored. */
  ready: Promise<void>;
}

/** One transcript entry of `tasklane.getState`. */
export interface StateMessage {
  role: 'user' | 'assistant' | 'error' | 'event';
  text: string;
}

/** The part of the `tasklane.getState` snapshot host suites read. */
export interface StateSnapshot {
  sessions: Array<{ id: string; messages: StateMessage[] }>;
}

export const TASKLANE_ID = 'tasklane.tasklane';

/** Activates Tasklane (if the workbench has not yet) and waits until it is ready. */
export async function activateTasklane(): Promise<{ extension: vscode.Extension<TasklaneApi>; api: TasklaneApi }> {
  const extension = vscode.extensions.getExtension<TasklaneApi>(TASKLANE_ID);
  if (!extension) {
    const installed = vscode.extensions.all.map((e) => e.id).join(', ');
    throw new Error(`${TASKLANE_ID} is not installed in this extension host (installed: ${installed}); did the harness copy dist/ into the extensions dir?`);
  }
  const api = await extension.activate();
  await api.ready;
  return { extension, api };
}

/** Turns the API's storageUri (URI string or plain path) into a vscode.Uri. */
export function storageUriOf(api: TasklaneApi): vscode.Uri | undefined {
  if (!api.storageUri) return undefined;
  return /^[a-z][a-z0-9+.-]+:/i.test(api.storageUri) ? vscode.Uri.parse(api.storageUri) : vscode.Uri.file(api.storageUri);
}

/** Sets the scripted model's next answers (no-op error when the harness started no model server). */
export async function scriptModel(steps: unknown[]): Promise<void> {
  const url = process.env.TASKLANE_TEST_MODEL_URL;
  if (!url) throw new Error('TASKLANE_TEST_MODEL_URL is not set: the harness started no scripted model server');
  const response = await fetch(`${url}/__script`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(steps) });
  if (!response.ok) throw new Error(`POST /__script answered ${response.status}: ${await response.text()}`);
}

/** Polls `tasklane.getState` until `predicate` holds; fails with the last snapshot after `timeoutMs`. */
export async function waitForState(predicate: (state: StateSnapshot) => boolean, timeoutMs = 20_000): Promise<StateSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let state: StateSnapshot | undefined;
  while (Date.now() < deadline) {
    state = (await vscode.commands.executeCommand('tasklane.getState')) as StateSnapshot;
    if (state && predicate(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`state never matched within ${timeoutMs} ms; last snapshot: ${JSON.stringify(state).slice(0, 2000)}`);
}

/**
 * Cancels every task still running or paused and empties the scripted model's queue, so a suite
 * starts from a quiet agent: work left over by an earlier suite would otherwise take this suite's
 * scripted answers.
 */
export async function quiesce(timeoutMs = 20_000): Promise<void> {
  type Task = { id: string; status: string; paused?: boolean };
  const live = (state: StateSnapshot) => ((state as unknown as { tasks?: Task[] }).tasks ?? []).filter((t) => t.status === 'running' || t.paused);
  const state = (await vscode.commands.executeCommand('tasklane.getState')) as StateSnapshot;
  for (const task of live(state)) await vscode.commands.executeCommand('tasklane.cancelTask', task.id);
  await waitForState((s) => live(s).length === 0, timeoutMs);
  const url = process.env.TASKLANE_TEST_MODEL_URL;
  if (url) await fetch(`${url}/__reset`, { method: 'POST' });
}
