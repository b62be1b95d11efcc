import * as vscode from 'vscode';
import type { ChoreRunRecord } from '../../core/chores/runLog';
import { choreChartModel } from '../../shared/choreChartModel';
import type { ChoreHostMessage, ChoreRunView, ChoreStepView, ChoreView } from '../../shared/choreProtocol';
import { costText } from '../../shared/costText';
import { choreRunState, TASK_STATES } from '../../shared/taskState';
import type { TaskStateWord } from '../../shared/taskState';
import { toStepView } from '../chores/choreViews';
import { throttled } from './throttle';

/** What the Chores view reads: the chore host once the store is open (src/host/chores/choreHost.ts). */
export interface ChoresSource {
  list(): Promise<ChoreView[]>;
  /** A run with its steps (its live trace). */
  run(runId: string): ChoreRunRecord | undefined;
  onDidPost(listener: (message: ChoreHostMessage) => void): vscode.Disposable;
}

/** A row of the Chores view: a chore, one of its runs, a run's step, or a line of detail. */
export type ChoreNode =
  | { kind: 'chore'; chore: ChoreView }
  | { kind: 'run'; run: ChoreRunView; label: string }
  | { kind: 'step'; runId: string; step: ChoreStepView }
  | { kind: 'line'; id: string; label: string; tooltip?: string; icon?: string };

/** Runs listed under a chore (newest first); the rest stay in `tasklane.getState` and the run log. */
const RUNS_SHOWN = 10;
/** A detail line's visible text; the whole text is its tooltip. */
const LINE_CHARS = 160;

/** A run's icon: its task's state icon where the vocabulary has a word for it (src/shared/taskState.ts). */
const STATE_COLOUR: Partial<Record<TaskStateWord, string>> = {
  done: 'testing.iconPassed',
  failed: 'testing.iconFailed',
  'waiting for you': 'list.warningForeground',
};
const RUN_ONLY_ICON: Record<string, [string, string?]> = {
  budget_exhausted: ['warning', 'list.warningForeground'],
  skipped: ['debug-step-over'],
  missed: ['debug-step-over'],
};
function runIcon(status: string): [string, string?] {
  const word = choreRunState(status);
  if (!word) return RUN_ONLY_ICON[status] ?? ['circle-outline'];
  const look = TASK_STATES[word];
  return [`${look.codicon}${look.spin ? '~spin' : ''}`, STATE_COLOUR[word]];
}

/**
 * Ends a label shown with a description: VS Code draws the two side by side with no text between
 * them, so without it the row's visible text ("Docs digestcron 0 9…") is not part of its
 * accessible name ("Docs digest cron 0 9…"), which axe reports (label-content-name-mismatch).
 */
export const SPACE = ' ';

const icon = ([id, colour]: [string, string?]) => new vscode.ThemeIcon(id, colour ? new vscode.ThemeColor(colour) : undefined);

/** `when` flags of a chore's row (`viewItem =~ /\brunnable\b/`): which of its actions apply now. */
export function choreFlags(chore: ChoreView): string {
  return [
    'chore',
    chore.enabled ? 'runnable' : '',
    chore.consent === 'needed' && chore.review ? 'needsConsent' : '',
    chore.consent === 'given' ? 'consented' : '',
    chore.paused ? 'paused' : '',
    chore.review ? 'valid' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function short(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > LINE_CHARS ? `${one.slice(0, LINE_CHARS - 1)}…` : one;
}

function line(id: string, label: string, icon?: string): ChoreNode {
  return { kind: 'line', id, label: short(label), ...(short(label) !== label ? { tooltip: label } : {}), ...(icon ? { icon } : {}) };
}

/** What a chore needs before it runs, as lines: what it would do (consent), or what stops it. */
function detailLines(chore: ChoreView): ChoreNode[] {
  const lines: ChoreNode[] = [];
  const key = (name: string) => `${chore.id}/${name}`;
  if (chore.problem) lines.push(line(key('problem'), chore.problem, chore.consent === 'needed' ? 'shield' : 'warning'));
  if (chore.costNote) lines.push(line(key('cost'), `Cost will be estimated: ${chore.costNote}`, 'info'));
  const review = chore.review;
  if (chore.consent === 'needed' && review) {
    lines.push(line(key('trigger'), `Trigger: ${chore.trigger}`));
    lines.push(line(key('prompt'), `Prompt: ${review.prompt}`));
    lines.push(line(key('sets'), `Action sets: ${review.actionSets.join(', ')} (edits and commands still ask)`));
    for (const skill of review.skillBodies)
      lines.push(
        line(
          key(`skill/${skill.name}`),
          skill.body === undefined ? `Skill ${skill.name}: not installed (nothing is injected)` : `Skill ${skill.name}: ${skill.body}`,
        ),
      );
    for (const [i, server] of (review.mcp ?? []).entries()) lines.push(line(key(`mcp/${i}`), `MCP server ${server}`));
    lines.push(line(key('budget'), `Budget: ${review.budget}`));
    lines.push(line(key('escalation'), `Escalation: ${review.escalation.length ? review.escalation.join('; ') : 'none'}`));
    lines.push(line(key('policy'), `Policy: ${review.policy}`));
  }
  return lines;
}

/** A run's row: its outcome and when, then what it used. */
function runLabel(run: ChoreRunView): { label: string; description: string } {
  const when = new Date(run.startedAt).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  const usage = `${run.usage.iterations} turns · ${run.usage.inputTokens} tokens · ${costText(run.usage.cost, run.usage.costEstimated)}`;
  return { label: `${run.status.replace(/_/g, ' ')} · ${when}`, description: `${usage}${run.reason ? ` · ${run.reason}` : ''}` };
}

/**
 * The Chores view (`tasklane.chores`): each chore of .tasklane/chores.yaml with its trigger and next
 * fire, what it would do while it waits for Enable, its last runs and each run's steps (the live
 * trace: the view follows the chore host's changes). Run now, Enable…, Disable, Resume and Preview
 * are the row's actions (package.json `view/item/context`), New Chore and the file the view's.
 */
export class ChoresTree implements vscode.TreeDataProvider<ChoreNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ChoreNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private source: ChoresSource | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly refresh = throttled(100, () => this.changed.fire(undefined));

  /** Called once the store is open: the view lists the chores from then on and follows their runs. */
  attach(source: ChoresSource): void {
    this.source = source;
    this.disposables.push(source.onDidPost(() => this.refresh()));
    this.changed.fire(undefined);
  }

  async getChildren(node?: ChoreNode): Promise<ChoreNode[]> {
    const source = this.source;
    if (!source) return [];
    if (!node) return (await source.list()).map((chore) => ({ kind: 'chore', chore }));
    if (node.kind === 'chore') {
      const runs = node.chore.recentRuns ?? (node.chore.lastRun ? [node.chore.lastRun] : []);
      const labels = new Map(choreChartModel(runs, Date.now()).bars.map((bar) => [bar.runId, bar.label]));
      return [
        ...detailLines(node.chore),
        ...runs.slice(0, RUNS_SHOWN).map((run): ChoreNode => ({ kind: 'run', run, label: labels.get(run.id) ?? run.status })),
      ];
    }
    if (node.kind === 'run') return (source.run(node.run.id)?.steps ?? []).map((step) => ({ kind: 'step', runId: node.run.id, step: toStepView(step) }));
    if (node.kind === 'step') {
      const { step, runId } = node;
      return [
        line(`${runId}/${step.seq}/args`, `args: ${step.args}`),
        ...(step.result === undefined ? [] : [line(`${runId}/${step.seq}/result`, `result: ${step.result}`)]),
      ];
    }
    return [];
  }

  getTreeItem(node: ChoreNode): vscode.TreeItem {
    const None = vscode.TreeItemCollapsibleState.None;
    const Collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.kind) {
      case 'chore': {
        const chore = node.chore;
        const needsConsent = chore.consent === 'needed' && chore.review;
        // Waiting for Enable opens by itself: what it would do is the point of the row.
        const item = new vscode.TreeItem(`${chore.name}${SPACE}`, needsConsent ? vscode.TreeItemCollapsibleState.Expanded : Collapsed);
        item.id = `chore/${chore.id}`;
        const next = chore.nextFireAt ? ` · next ${new Date(chore.nextFireAt).toLocaleString()}` : '';
        item.description = `${chore.trigger}${next}`;
        const summary = chore.recentRuns?.length ? choreChartModel(chore.recentRuns, Date.now()).summary : 'No runs yet.';
        const state = !chore.review
          ? 'invalid'
          : needsConsent
            ? 'waits for Enable'
            : chore.paused
              ? `paused: ${chore.paused}`
              : chore.enabled
                ? 'enabled'
                : (chore.problem ?? 'not running');
        item.tooltip = `${chore.name} (${chore.id})\n${chore.trigger}${next}\n${state}\n${summary}`;
        // The accessible name starts with what the row shows (label, then description), then says more.
        item.accessibilityInformation = { label: `${chore.name} ${item.description}, ${state}. ${summary}` };
        item.contextValue = choreFlags(chore);
        const running = chore.lastRun?.status === 'running';
        item.iconPath = running
          ? icon(runIcon('running'))
          : !chore.review
            ? icon(['error', 'list.errorForeground'])
            : needsConsent
              ? icon(['shield', 'list.warningForeground'])
              : chore.paused
                ? icon(['debug-pause'])
                : chore.enabled
                  ? icon(['checklist'])
                  : icon(['circle-slash']);
        return item;
      }
      case 'run': {
        const { label, description } = runLabel(node.run);
        const item = new vscode.TreeItem(`${label}${SPACE}`, Collapsed);
        item.id = `run/${node.run.id}`;
        item.description = description;
        item.tooltip = node.label;
        item.accessibilityInformation = { label: `${label} ${description}. ${node.label}` };
        item.iconPath = icon(runIcon(node.run.status));
        item.contextValue = 'choreRun';
        return item;
      }
      case 'step': {
        const { step } = node;
        const label = `${step.tool} · ${step.status}${step.durationMs === undefined ? '' : ` · ${step.durationMs} ms`}`;
        const item = new vscode.TreeItem(label, Collapsed);
        item.id = `step/${node.runId}/${step.seq}`;
        item.accessibilityInformation = { label };
        item.iconPath = icon(step.status === 'ok' ? ['check'] : step.status === 'error' ? ['error', 'list.errorForeground'] : ['loading~spin']);
        item.contextValue = 'choreStep';
        return item;
      }
      case 'line': {
        const item = new vscode.TreeItem(node.label, None);
        item.id = `line/${node.id}`;
        item.tooltip = node.tooltip ?? node.label;
        // The name starts with the text shown (axe: label-content-name-mismatch), then the whole line it cuts.
        item.accessibilityInformation = { label: node.tooltip ? `${node.label} In full: ${node.tooltip}` : node.label };
        if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
        return item;
      }
    }
  }

  dispose(): void {
    this.refresh.cancel();
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
  }
}
