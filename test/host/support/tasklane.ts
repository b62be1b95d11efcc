import * as vscode from 'vscode';
import { until as poll } from '../../support/poll';
import { routeSteps } from '../../support/routes';

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

/** The scripted model server's URL; fails with what is wrong when the harness started none. */
export function modelUrl(): string {
  const url = process.env.TASKLANE_TEST_MODEL_URL;
  if (!url) throw new Error('the harness started no scripted model server (TASKLANE_TEST_MODEL_URL unset)');
  return url;
}

export { route } from '../../support/routes';

/** Queues the answers of the work marked `marker` (see test/support/routes.ts). */
export async function scriptModel(marker: string, steps: Array<Record<string, unknown>>): Promise<void> {
  const body = JSON.stringify(routeSteps(marker, steps));
  const response = await fetch(`${modelUrl()}/__script`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!response.ok) throw new Error(`POST /__script answered ${response.status}: ${await response.text()}`);
}

/** Empties the scripted model's queue and its request log. */
export async function resetModel(): Promise<void> {
  await fetch(`${modelUrl()}/__reset`, { method: 'POST' });
}

/**
 * The requests the scripted model has received since its last reset, oldest first; with a marker,
 * only those of that work (background calls such as memory distillation are in the full list).
 */
export async function modelRequests<Body = unknown>(marker?: string): Promise<Array<{ body: Body }>> {
  const query = marker ? `?route=${encodeURIComponent(marker)}` : '';
  return (await (await fetch(`${modelUrl()}/__requests${query}`)).json()) as Array<{ body: Body }>;
}

/** The bodies of modelRequests(marker) as JSON text, for matching what the model was told. */
export async function requestsText(marker?: string): Promise<string[]> {
  return (await modelRequests(marker)).map((r) => JSON.stringify(r.body));
}

/** The shared polling helper (test/support/poll.ts) with this tier's argument order. */
export function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000, detail?: () => string): Promise<T> {
  return poll(what, probe, { timeoutMs, ...(detail ? { detail } : {}) });
}

/** Waits for a model request (of the work `marker`, after its first `skip`) whose JSON text matches `pattern`. */
export function modelSaw(pattern: RegExp, skip = 0, marker?: string): Promise<string> {
  return until(`a model request matching ${pattern}`, async () => (await requestsText(marker)).slice(skip).find((t) => pattern.test(t)));
}

/** Points Tasklane at the scripted model over the OpenAI-compatible wire, with no retries. */
export async function useScriptedModel(): Promise<void> {
  const config = vscode.workspace.getConfiguration('tasklane.model');
  const target = vscode.ConfigurationTarget.Global;
  await config.update('provider', 'openai-compatible', target);
  await config.update('id', 'scripted', target);
  await config.update('baseUrl', `${modelUrl()}/v1`, target);
  await config.update('maxRetries', 0, target);
}

/** Polls `tasklane.getState` until `predicate` holds; fails with the last snapshot after `timeoutMs`. */
export async function waitForState(predicate: (state: StateSnapshot) => boolean, timeoutMs = 20_000): Promise<StateSnapshot> {
  let state: StateSnapshot | undefined;
  return until(
    'the state to match',
    async () => {
      state = (await vscode.commands.executeCommand('tasklane.getState')) as StateSnapshot;
      return state && predicate(state) ? state : undefined;
    },
    timeoutMs,
    () => `last snapshot: ${JSON.stringify(state).slice(0, 2000)}`,
  );
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
  // quiesce also serves a run the harness started without a model server: nothing to reset there.
  if (process.env.TASKLANE_TEST_MODEL_URL) await resetModel();
}

/** Resolves once a request of the scripted model is held at `gate` (the model server's explicit signal). */
export async function heldAt(gate: string, timeoutMs = 30_000): Promise<void> {
  await until(`a model request held at gate ${gate}`, async () => ((await (await fetch(`${modelUrl()}/__held`)).json()) as string[]).includes(gate), timeoutMs);
}

/** Lets the requests held at `gate` answer. */
export async function releaseGate(gate: string): Promise<void> {
  const response = await fetch(`${modelUrl()}/__release`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ gate }) });
  if (!response.ok) throw new Error(`POST /__release answered ${response.status}: ${await response.text()}`);
}

/** The chores part of a `tasklane.getState` snapshot, as `writeChoresFile` hands it to `loaded`. */
export interface ChoresSnapshot {
  chores: Array<{ id: string; review?: unknown }>;
}

/**
 * Writes `.tasklane/chores.yaml` once and resolves with the state once `loaded` says the chores
 * host read it. Once: the chores watcher must see a file written into a folder that did not exist
 * a moment before (a pull that brings the first chores.yaml), so a missed write is a failure here.
 */
export async function writeChoresFile<S extends ChoresSnapshot>(yaml: string, loaded: (state: S) => boolean): Promise<S> {
  const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.tasklane/chores.yaml');
  await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(`${yaml}\n`));
  return until(
    'chores.yaml to load',
    async () => {
      const state = (await vscode.commands.executeCommand('tasklane.getState')) as S;
      return loaded(state) ? state : undefined;
    },
    15_000,
  );
}

/**
 * The report Tasklane opened last under `scheme` (a read-only document of its own), once the
 * active tab shows it rendered: the Markdown preview (src/host/readOnlyDocuments.ts).
 */
export async function renderedReport(scheme: string): Promise<vscode.TextDocument> {
  await until(`a Markdown preview of a ${scheme} document as the active tab`, async () => {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputWebview && input.viewType.includes('markdown.preview') ? true : undefined;
  });
  const documents = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === scheme);
  const last = documents.sort((a, b) => a.uri.query.localeCompare(b.uri.query, undefined, { numeric: true })).at(-1);
  if (!last) throw new Error(`no ${scheme} document is open`);
  return last;
}
