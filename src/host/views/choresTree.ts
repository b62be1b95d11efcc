import * as vscode from 'vscode';
import type { ChoreRunRecord } from '../../core/chores/runLog';
import { choreChartModel, runEndWords } from '../../shared/choreChartModel';
import type { ChoreHostMessage, ChoreRunView, ChoreStepView, ChoreView } from '../../shared/choreProtocol';
import { costText, costWords } from '../../shared/costText';
import { forLabel, forTooltip } from '../../core/security/surfaceText';
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
  'checks failed': 'testing.iconFailed',
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

/**
 * A detail line: its text as written (Tasklane's translated words around a chore's own text),
 * shortened for the row; `getTreeItem` neutralises both forms where they are shown.
 */
function detailLine(id: string, label: string, icon?: string): ChoreNode {
  return { kind: 'line', id, label: short(label), ...(short(label) !== label ? { tooltip: label } : {}), ...(icon ? { icon } : {}) };
}

/** What a chore needs before it runs, as lines: what it would do (consent), or what stops it. */
function detailLines(chore: ChoreView): ChoreNode[] {
  const lines: ChoreNode[] = [];
  const key = (name: string) => `${chore.id}/${name}`;
  if (chore.problem) lines.push(detailLine(key('problem'), chore.problem, chore.consent === 'needed' ? 'shield' : 'warning'));
  if (chore.costNote) lines.push(detailLine(key('cost'), vscode.l10n.t('Cost will be estimated: {0}', chore.costNote), 'info'));
  const review = chore.review;
  if (chore.consent === 'needed' && review) {
    lines.push(detailLine(key('trigger'), vscode.l10n.t('Trigger: {0}', chore.trigger)));
    lines.push(detailLine(key('prompt'), vscode.l10n.t('Prompt: {0}', review.prompt)));
    lines.push(detailLine(key('sets'), vscode.l10n.t('Action sets: {0} (edits and commands still ask)', review.actionSets.join(', '))));
    for (const skill of review.skillBodies)
      lines.push(
        detailLine(
          key(`skill/${skill.name}`),
          skill.body === undefined
            ? vscode.l10n.t('Skill {0}: not installed (nothing is injected)', skill.name)
            : vscode.l10n.t('Skill {0}: {1}', skill.name, skill.body),
        ),
      );
    for (const [i, server] of (review.mcp ?? []).entries()) lines.push(detailLine(key(`mcp/${i}`), vscode.l10n.t('MCP server {0}', server)));
    lines.push(detailLine(key('budget'), vscode.l10n.t('Budget: {0}', review.budget)));
    lines.push(
      detailLine(key('escalation'), vscode.l10n.t('Escalation: {0}', review.escalation.length ? review.escalation.join('; ') : vscode.l10n.t('none'))),
    );
    lines.push(detailLine(key('policy'), vscode.l10n.t('Policy: {0}', review.policy)));
  }
  return lines;
}

/** A run's row: its outcome and when, then what it used. */
function runLabel(run: ChoreRunView): { label: string; description: string } {
  const when = new Date(run.startedAt).toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  const usage = vscode.l10n.t(
    '{0} turns · {1} tokens · {2}',
    run.usage.iterations,
    run.usage.inputTokens,
    costText(run.usage.cost, run.usage.costEstimated, 3, costWords(vscode.l10n)),
  );
  // The reason is the model's or the runner's words: one bounded line, no icons.
  return { label: `${runEndWords(run, vscode.l10n)} · ${when}`, description: `${usage}${run.reason ? ` · ${forLabel(run.reason)}` : ''}` };
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
      const labels = new Map(choreChartModel(runs, Date.now(), vscode.l10n).bars.map((bar) => [bar.runId, bar.label]));
      return [
        ...detailLines(node.chore),
        ...runs.slice(0, RUNS_SHOWN).map((run): ChoreNode => ({ kind: 'run', run, label: labels.get(run.id) ?? run.status })),
      ];
    }
    if (node.kind === 'run') return (source.run(node.run.id)?.steps ?? []).map((step) => ({ kind: 'step', runId: node.run.id, step: toStepView(step) }));
    if (node.kind === 'step') {
      const { step, runId } = node;
      return [
        detailLine(`${runId}/${step.seq}/args`, vscode.l10n.t('args: {0}', step.args)),
        ...(step.result === undefined ? [] : [detailLine(`${runId}/${step.seq}/result`, vscode.l10n.t('result: {0}', step.result))]),
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
        // A chore's name, id, trigger and problem are the repository's words (chores.yaml): forLabel.
        const name = forLabel(chore.name);
        const trigger = forLabel(chore.trigger);
        const item = new vscode.TreeItem(`${name}${SPACE}`, needsConsent ? vscode.TreeItemCollapsibleState.Expanded : Collapsed);
        item.id = `chore/${chore.id}`;
        const next = chore.nextFireAt ? vscode.l10n.t(' · next {0}', new Date(chore.nextFireAt).toLocaleString()) : '';
        item.description = `${trigger}${next}`;
        const summary = choreChartModel(chore.recentRuns ?? [], Date.now(), vscode.l10n).summary;
        const state = !chore.review
          ? vscode.l10n.t('invalid')
          : needsConsent
            ? vscode.l10n.t('waits for Enable')
            : chore.paused
              ? vscode.l10n.t('paused: {0}', forLabel(chore.paused))
              : chore.enabled
                ? vscode.l10n.t('enabled')
                : chore.problem
                  ? forLabel(chore.problem)
                  : vscode.l10n.t('not running');
        item.tooltip = `${name} (${forLabel(chore.id)})\n${trigger}${next}\n${state}\n${forTooltip(summary)}`;
        // The accessible name starts with what the row shows (label, then description), then says more.
        item.accessibilityInformation = { label: `${name} ${item.description}, ${state}. ${summary}` };
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
        const shown = runLabel(node.run);
        // The reason in the description is already neutralised; the whole row once more costs nothing.
        const label = forLabel(shown.label);
        const description = forLabel(shown.description);
        const item = new vscode.TreeItem(`${label}${SPACE}`, Collapsed);
        item.id = `run/${node.run.id}`;
        item.description = description;
        item.tooltip = forTooltip(node.label);
        item.accessibilityInformation = { label: `${label} ${description}. ${node.label}` };
        item.iconPath = icon(runIcon(node.run.status));
        item.contextValue = 'choreRun';
        return item;
      }
      case 'step': {
        const { step } = node;
        // The tool's name is the model's (or an MCP server's): one bounded line.
        const label = `${forLabel(step.tool)} · ${step.status}${step.durationMs === undefined ? '' : vscode.l10n.t(' · {0} ms', step.durationMs)}`;
        const item = new vscode.TreeItem(label, Collapsed);
        item.id = `step/${node.runId}/${step.seq}`;
        item.accessibilityInformation = { label };
        item.iconPath = icon(step.status === 'ok' ? ['check'] : step.status === 'error' ? ['error', 'list.errorForeground'] : ['loading~spin']);
        item.contextValue = 'choreStep';
        return item;
      }
      case 'line': {
        // A detail line carries a chore's own text (its prompt, a skill's body, a step's arguments).
        const label = forLabel(node.label);
        const item = new vscode.TreeItem(label, None);
        item.id = `line/${node.id}`;
        item.tooltip = forTooltip(node.tooltip ?? node.label);
        // The name starts with the text shown (axe: label-content-name-mismatch), then the whole line it cuts.
        item.accessibilityInformation = { label: node.tooltip ? vscode.l10n.t('{0} In full: {1}', label, forTooltip(node.tooltip)) : label };
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
