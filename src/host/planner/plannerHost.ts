/**
 * The planner in VS Code: the signals it looks at (the Problems view's errors, chores failing
 * again and again, tasks paused for days, TODO/FIXME added by recent commits, open items in
 * MEMORY.md), the timer that asks it to look (a no-op while `tasklane.planner.enabled` is off),
 * and its suggestions as a native
 * view in the Tasklane container with Start Task…, Dismiss and Don't Suggest This Again. Start
 * Task shows the whole instruction in a modal first: a suggestion is model output made from
 * workspace text, and it becomes work only on that yes.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChoreRunLog } from '../../core/chores/runLog';
import type { Agent } from '../../core/engine/agent';
import type { GitReader } from '../../core/git/readOnlyGit';
import type { Planner, PlannerSignal, Suggestion } from '../../core/planner/planner';
import { memoryFileSignals } from '../../core/planner/memorySignals';
import type { Logger } from '../../core/ports';
import { showInvisible } from '../../shared/visibleText';
import { forLabel, forModalDetail, forNotification, forTooltip } from '../../core/security/surfaceText';

const DAY = 86_400_000;
/** How often the timer asks; the planner itself keeps to its interval. */
const TICK_MS = 5 * 60_000;
/** A chore whose last runs all failed, this many, is a signal. */
const FAILED_RUNS = 3;

/** Where the signals come from. */
export interface SignalSources {
  root: vscode.Uri | undefined;
  git?: GitReader;
  agent: () => Agent | undefined;
  chores: () => { ids: string[]; runLog: ChoreRunLog } | undefined;
  now: () => number;
  /** The agent's MEMORY.md: notes that leave work open are signals. */
  memoryFile?: string;
}

/** The workspace's signals now, each with a key stable for its subject. */
export async function plannerSignals(sources: SignalSources): Promise<PlannerSignal[]> {
  const out: PlannerSignal[] = [];
  const root = sources.root;
  if (root) {
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      const errors = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
      const relative = path.posix.relative(root.path, uri.path);
      if (!errors.length || uri.scheme !== root.scheme || !relative || relative.startsWith('..')) continue;
      const first = errors[0];
      out.push({
        key: `diagnostics:${relative}`,
        text: `${errors.length} error${errors.length === 1 ? '' : 's'} in ${relative}, first at line ${(first?.range.start.line ?? 0) + 1}: ${first?.message ?? ''}`,
      });
    }
  }
  const chores = sources.chores();
  for (const id of chores?.ids ?? []) {
    const last =
      chores?.runLog
        .history(id)
        .filter((r) => r.status !== 'running' && r.status !== 'skipped')
        .slice(0, FAILED_RUNS) ?? [];
    if (last.length === FAILED_RUNS && last.every((r) => r.status !== 'succeeded')) {
      out.push({
        key: `chore:${id}`,
        text: `The chore ${id} failed its last ${FAILED_RUNS} runs; the latest: ${last[0]?.status} (${last[0]?.reason ?? 'no reason given'})`,
      });
    }
  }
  const now = sources.now();
  for (const task of sources.agent()?.views.snapshot().tasks ?? []) {
    if (task.paused && now - task.createdAt > 3 * DAY) {
      out.push({
        key: `paused:${task.id}`,
        text: `The task "${task.name}" has been paused for ${Math.floor((now - task.createdAt) / DAY)} days (${task.pauseReason ?? 'paused'})`,
      });
    }
  }
  if (sources.git) out.push(...(await todoSignals(sources.git).catch(() => [])));
  if (sources.memoryFile) out.push(...(await memoryFileSignals(sources.memoryFile).catch(() => [])));
  return out;
}

/** TODO/FIXME lines the last commits added. */
async function todoSignals(git: GitReader): Promise<PlannerSignal[]> {
  const { text } = await git.run([
    'log',
    '--max-count=10',
    '-p',
    '-U0',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--relative',
    '--format=commit %h %s',
    '--',
    '.',
  ]);
  const out: PlannerSignal[] = [];
  let commit = '';
  let file = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('commit ')) commit = line.slice('commit '.length);
    else if (line.startsWith('+++ b/')) file = line.slice('+++ b/'.length);
    else if (line.startsWith('+') && !line.startsWith('+++') && /\b(TODO|FIXME)\b/.test(line) && out.length < 5) {
      out.push({ key: `todo:${file}:${line.slice(1).trim().slice(0, 80)}`, text: `Commit ${commit} added to ${file}: ${line.slice(1).trim()}` });
    }
  }
  return out;
}

type Node = Suggestion;

/** The Suggestions view: one row per suggestion, its instruction in the tooltip. */
export class SuggestionsTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private planner?: Planner;

  attach(planner: Planner): vscode.Disposable {
    this.planner = planner;
    this.changed.fire();
    return planner.onDidChange(() => this.changed.fire());
  }

  getChildren(node?: Node): Node[] {
    return node ? [] : [...(this.planner?.suggestions() ?? [])];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    // The model wrote the title, the reason and the instruction from repository text.
    const item = new vscode.TreeItem(forLabel(node.title));
    item.id = node.id;
    item.contextValue = 'suggestion';
    item.iconPath = new vscode.ThemeIcon('lightbulb');
    item.description = forLabel(node.why);
    item.tooltip = `${forTooltip(node.instruction)}\n\n${vscode.l10n.t('Why: {0}', forLabel(node.why))}`;
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * The Start modal of a suggestion: the whole instruction the task gets (the planner accepts at most
 * 2,000 characters) and why it was suggested. The model wrote both from repository text, so
 * invisible and reordering characters are written out, as on every card the person decides on.
 */
export function startQuestion(suggestion: Pick<Suggestion, 'title' | 'instruction' | 'why'>): { question: string; detail: string } {
  return {
    question: `Start the task “${showInvisible(suggestion.title)}”?`,
    detail: `${showInvisible(suggestion.instruction)}\n\nSuggested because: ${showInvisible(suggestion.why)}\n\nIts edits still ask before they are written.`,
  };
}

/** The Suggestions view and its row commands (registered at once), and the timer once the planner exists. */
export function registerPlanner(options: {
  planner: Promise<Planner | undefined>;
  enabled: () => boolean;
  logger: Logger;
  openTask: (taskId: string) => Promise<void>;
}): vscode.Disposable[] {
  const { logger } = options;
  const tree = new SuggestionsTree();
  const disposables: vscode.Disposable[] = [];
  const ready = async (): Promise<Planner> => {
    const planner = await options.planner;
    if (!planner) throw new Error('The planner needs an open folder and Tasklane running.');
    return planner;
  };
  const suggestionOf = async (node: unknown): Promise<{ planner: Planner; suggestion: Suggestion }> => {
    const planner = await ready();
    const suggestion = planner.suggestions().find((s) => s.id === (node as Suggestion | undefined)?.id);
    if (!suggestion) throw new Error('Pick a suggestion in the Suggestions view.');
    return { planner, suggestion };
  };
  const showWhenOn = () => void vscode.commands.executeCommand('setContext', 'tasklane.plannerEnabled', options.enabled());
  showWhenOn();
  void options.planner.then(
    (planner) => {
      if (!planner) return;
      const tick = () =>
        void planner.tick().then(
          (outcome) => logger.trace('TASK', `planner: ${outcome}`),
          (error: unknown) => logger.warn('TASK', `planner: ${(error as Error).message}`),
        );
      const timer = setInterval(tick, TICK_MS);
      disposables.push(
        tree.attach(planner),
        { dispose: () => clearInterval(timer) },
        vscode.workspace.onDidChangeConfiguration((event) => {
          if (event.affectsConfiguration('tasklane.planner')) tick();
        }),
      );
      tick();
    },
    () => undefined,
  );
  return [
    tree,
    { dispose: () => disposables.forEach((d) => d.dispose()) },
    vscode.window.createTreeView('tasklane.suggestions', { treeDataProvider: tree }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('tasklane.planner')) showWhenOn();
    }),
    vscode.commands.registerCommand('tasklane.planner.start', async (node: unknown) => {
      const { planner, suggestion } = await suggestionOf(node);
      // The whole instruction, as the task would get it: the yes is to exactly this.
      const { question, detail } = startQuestion(suggestion);
      const yes = await vscode.window.showInformationMessage(
        forNotification(question),
        { modal: true, detail: forModalDetail(detail) },
        vscode.l10n.t('Start Task'),
      );
      if (yes !== vscode.l10n.t('Start Task')) return undefined;
      const { taskId } = await planner.start(suggestion.id);
      await options.openTask(taskId);
      return taskId;
    }),
    vscode.commands.registerCommand('tasklane.planner.dismiss', async (node: unknown) => {
      const { planner, suggestion } = await suggestionOf(node);
      await planner.dismiss(suggestion.id);
    }),
    vscode.commands.registerCommand('tasklane.planner.never', async (node: unknown) => {
      const { planner, suggestion } = await suggestionOf(node);
      await planner.never(suggestion.id);
    }),
  ];
}
