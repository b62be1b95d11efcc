import type { ChoreHostMessage, ChoreRunView, ChoreStepView, ChoreView, ChoreWebviewMessage } from '../shared/choreProtocol';
import { costText } from '../shared/costText';
import { CHART_RUNS } from '../shared/viewConstants';
import { choreChartModel, renderChoreChart } from './choreChart';
import { clear, formatTime, h, keepingFocus } from './dom';

/** Chores: next fire, last run and usage, Run now, and the selected run's live step trace. */
export class ChorePanel {
  private readonly chores = new Map<string, ChoreView>();
  private openRunId: string | undefined;
  private readonly list: HTMLElement;
  private readonly steps: HTMLElement;
  /** Which run the trace shows and how it stands, so the trace reads on its own while the list re-renders. */
  private readonly traceHead: HTMLElement;

  constructor(
    root: HTMLElement,
    private readonly post: (message: ChoreWebviewMessage) => void,
  ) {
    const header = h('div', { class: 'chores-head' }, h('span', { class: 'section-title' }, 'Chores'));
    const add = h('a', { href: '#', class: 'new-chore' }, 'New chore…');
    add.addEventListener('click', (e) => {
      e.preventDefault();
      this.post({ type: 'chore.new' });
    });
    header.appendChild(add);
    this.list = h('div', { class: 'chore-list' });
    this.traceHead = h('div', { class: 'chore-trace-head', hidden: true });
    this.steps = h('div', { class: 'chore-steps', hidden: true });
    root.append(header, this.list, this.traceHead, this.steps);
  }

  init(chores: ChoreView[]): void {
    this.chores.clear();
    for (const chore of chores) this.chores.set(chore.id, chore);
    this.render();
  }

  onMessage(message: { type: string }): boolean {
    const m = message as ChoreHostMessage;
    switch (m.type) {
      case 'chorePatch':
        this.chores.set(m.chore.id, m.chore);
        this.render();
        return true;
      case 'choreRemoved':
        this.chores.delete(m.id);
        this.render();
        return true;
      case 'choreRunPatch': {
        const chore = this.chores.get(m.run.choreId);
        if (chore) {
          chore.lastRun = m.run;
          chore.recentRuns = withRun(chore.recentRuns ?? [], m.run);
          this.render();
        }
        if (m.run.id === this.openRunId) this.renderTraceHead(m.run);
        return true;
      }
      case 'choreRunSteps':
        // The host decides which run the open trace shows: the one asked for, or the next run of
        // the same chore once it starts (it follows it). Only ignore it when no trace is open.
        if (this.openRunId === undefined) return true;
        this.openRunId = m.runId;
        this.renderSteps(m.steps);
        this.renderTraceHead(this.findRun(m.runId));
        return true;
      case 'choreStepPatch':
        if (m.runId === this.openRunId) this.patchStep(m.step);
        return true;
      default:
        return false;
    }
  }

  private render(): void {
    keepingFocus(this.list, 'data-chore-id', () => this.list.replaceChildren(...[...this.chores.values()].map((chore) => this.row(chore))));
  }

  private row(chore: ChoreView): HTMLElement {
    const run = h('vscode-button', { class: 'run-now', secondary: true, disabled: !chore.enabled }, 'Run now');
    run.addEventListener('click', () => this.post({ type: 'chore.runNow', id: chore.id }));
    const needsConsent = chore.consent === 'needed' && chore.review;
    return h(
      'div',
      { class: `chore${chore.enabled ? '' : ' disabled'}`, 'data-chore-id': chore.id, 'data-consent': chore.consent ?? '' },
      h('div', { class: 'chore-name' }, chore.name),
      h('div', { class: 'chore-meta' }, chore.trigger, chore.nextFireAt ? ` · next ${new Date(chore.nextFireAt).toLocaleString()}` : ''),
      chore.problem ? h('div', { class: `notice ${needsConsent ? 'warn' : 'error'}` }, chore.problem) : null,
      needsConsent ? this.review(chore) : null,
      chore.lastRun ? this.runLine(chore.lastRun) : null,
      chore.recentRuns?.length ? renderChoreChart(choreChartModel(chore.recentRuns, Date.now())) : null,
      needsConsent ? null : run,
      chore.paused ? this.resumeButton(chore) : null,
      chore.consent === 'given' ? this.disableLink(chore) : null,
    );
  }

  /** What the chore does, shown before its Enable button (the consent binds to this definition). */
  private review(chore: ChoreView): HTMLElement {
    const review = chore.review!;
    const enable = h('vscode-button', { class: 'enable-chore' }, 'Enable');
    enable.addEventListener('click', () => this.post({ type: 'chore.enable', id: chore.id, hash: review.definitionHash }));
    const line = (label: string, text: string) => h('div', { class: 'review-line' }, h('strong', {}, `${label}: `), text);
    return h(
      'div',
      { class: 'chore-review' },
      line('Trigger', chore.trigger),
      h('pre', { class: 'review-prompt' }, review.prompt),
      line('Action sets', `${review.actionSets.join(', ')} (edits and commands still ask)`),
      review.skills.length ? line('Skills', review.skills.join(', ')) : null,
      // What each skill tells the model: part of what the person enables (and of the hash).
      ...(review.skillBodies ?? []).map((skill) =>
        skill.body !== undefined
          ? h('details', { class: 'review-skill' }, h('summary', {}, `Skill ${skill.name}: its instructions`), h('pre', { class: 'review-prompt' }, skill.body))
          : line(`Skill ${skill.name}`, 'not installed (nothing is injected)'),
      ),
      line('Budget', review.budget),
      line('Escalation', review.escalation.length ? review.escalation.join('; ') : 'none'),
      line('Policy', review.policy),
      enable,
    );
  }

  /** A chore a budget cap paused stays paused until the person says so. */
  private resumeButton(chore: ChoreView): HTMLElement {
    const resume = h('vscode-button', { class: 'resume-chore' }, 'Resume');
    resume.addEventListener('click', () => this.post({ type: 'chore.resume', id: chore.id }));
    return resume;
  }

  private disableLink(chore: ChoreView): HTMLElement {
    const link = h('a', { href: '#', class: 'disable-chore' }, 'Disable');
    link.addEventListener('click', (e) => {
      e.preventDefault();
      this.post({ type: 'chore.disable', id: chore.id });
    });
    return link;
  }

  private runLine(run: ChoreRunView): HTMLElement {
    const open = h('a', { href: '#', class: 'open-run' }, 'trace');
    open.addEventListener('click', (e) => {
      e.preventDefault();
      this.openRunId = run.id;
      this.post({ type: 'chore.openRun', runId: run.id });
    });
    return h(
      'div',
      { class: `chore-run run-${run.status}`, 'data-status': run.status, 'data-run-id': run.id },
      `last run ${run.status} · ${formatTime(run.startedAt)} · ${run.usage.iterations} turns · ${run.usage.inputTokens} tokens · ${costText(run.usage.cost, run.usage.costEstimated)}${run.reason ? ` · ${run.reason}` : ''} `,
      open,
    );
  }

  private findRun(runId: string): ChoreRunView | undefined {
    for (const chore of this.chores.values()) if (chore.lastRun?.id === runId) return chore.lastRun;
    return undefined;
  }

  private renderTraceHead(run: ChoreRunView | undefined): void {
    clear(this.traceHead);
    this.traceHead.hidden = false;
    const chore = run ? this.chores.get(run.choreId) : undefined;
    this.traceHead.setAttribute('data-run-id', this.openRunId ?? '');
    this.traceHead.setAttribute('data-status', run?.status ?? '');
    this.traceHead.append(`Trace of ${chore?.name ?? 'run'} · ${run ? run.status : 'loading'}${run?.reason ? ` · ${run.reason}` : ''}`);
  }

  private renderSteps(steps: ChoreStepView[]): void {
    clear(this.steps);
    this.steps.hidden = false;
    for (const step of steps) this.steps.appendChild(this.step(step));
  }

  private patchStep(step: ChoreStepView): void {
    const existing = this.steps.querySelector(`[data-seq="${step.seq}"]`);
    if (existing) existing.replaceWith(this.step(step));
    else this.steps.appendChild(this.step(step));
  }

  private step(step: ChoreStepView): HTMLElement {
    return h(
      'details',
      { class: `chore-step step-${step.status}`, 'data-seq': step.seq, 'data-tool': step.tool, 'data-status': step.status },
      h('summary', {}, `${step.tool} · ${step.status}${step.durationMs === undefined ? '' : ` · ${step.durationMs} ms`}`),
      h('pre', {}, `args: ${step.args}${step.result === undefined ? '' : `\nresult: ${step.result}`}`),
    );
  }
}

/** The chart's runs (newest first) with `run` put in its place: patched when known, else newest. */
function withRun(runs: ChoreRunView[], run: ChoreRunView): ChoreRunView[] {
  const at = runs.findIndex((r) => r.id === run.id);
  if (at >= 0) return runs.map((r) => (r.id === run.id ? run : r));
  return [run, ...runs].slice(0, CHART_RUNS);
}
