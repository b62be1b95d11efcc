import type { StepKind, StepText, StepView } from '../shared/threadProtocol';
import { h } from './dom';

/** A codicon per kind of step (decorative: the row's words say what happened). */
const ICONS: Record<StepKind, string> = {
  read: 'file',
  list: 'list-tree',
  search: 'search',
  edit: 'edit',
  command: 'terminal',
  ask: 'question',
  task: 'tasklist',
  decision: 'check',
  notice: 'info',
  error: 'warning',
  tool: 'tools',
};

const STATE_WORDS: Record<StepView['state'], string> = { running: 'in progress', done: '', failed: 'failed' };

/** A row's text: words as text, literals (a command, a query) as code; never parsed as HTML. */
export function renderStepText(text: StepText): HTMLElement {
  return h('span', { class: 'step-text' }, ...text.map((part) => (typeof part === 'string' ? part : h('code', {}, part.code))));
}

/** One step row. Its state is in its class and, for a screen reader, in words after the text. */
export function renderStep(step: StepView): HTMLElement {
  const state = STATE_WORDS[step.state];
  return h(
    'li',
    { class: `step step-${step.state} step-${step.kind}`, 'data-step-id': step.id, 'data-state': step.state },
    h('span', { class: `step-icon codicon codicon-${ICONS[step.kind] ?? 'circle-small'}`, 'aria-hidden': 'true' }),
    renderStepText(step.text),
    step.note ? h('span', { class: 'step-note' }, step.note) : null,
    state ? h('span', { class: 'visually-hidden' }, ` (${state})`) : null,
  );
}

/**
 * The block of a task a step started, to draw in the step's row; undefined while that task is not
 * known (the row is then plain words until `refreshTask`).
 */
export type NestedBlock = (taskId: string) => HTMLElement | undefined;

/** The height a row not drawn yet is given (a one-line row), so the list keeps about its size. */
const ROW_ESTIMATE_PX = 20;

/**
 * A task's steps, in the order they began. A row is patched in place by id, and only by a newer
 * version of it (`rev`): a live step and the page of steps asked for when the block appeared can
 * arrive in either order. A step that started a task shows that task's block (`nested`).
 *
 * A list made `held` keeps its steps without drawing them, at about their height, until `draw()`:
 * the thread draws a block's rows when the block comes near the visible part of the transcript,
 * so a thread of 50 blocks and 2,000 rows opens at the cost of the few blocks in view.
 */
export class StepList {
  readonly element: HTMLOListElement;
  private readonly rows = new Map<string, { step: StepView; element?: HTMLElement }>();
  private drawn: boolean;

  constructor(
    private readonly nested?: NestedBlock,
    held = false,
  ) {
    this.element = h('ol', { class: 'steps', 'aria-label': 'Steps' });
    this.drawn = !held;
  }

  get size(): number {
    return this.rows.size;
  }

  /** Whether the rows are in the page (else they wait for `draw`). */
  get isDrawn(): boolean {
    return this.drawn;
  }

  /** Whether one of the steps started a task. */
  get startsTasks(): boolean {
    for (const row of this.rows.values()) if (row.step.taskId) return true;
    return false;
  }

  /** Adds or patches a row; false when the row already shows this version or a newer one. */
  upsert(step: StepView): boolean {
    const kept = this.rows.get(step.id);
    if (kept && kept.step.rev >= step.rev) return false;
    if (!this.drawn) {
      this.rows.set(step.id, { step });
      this.element.style.minHeight = `${this.rows.size * ROW_ESTIMATE_PX}px`;
      return true;
    }
    const element = this.render(step);
    if (kept?.element) kept.element.replaceWith(element);
    else this.element.insertBefore(element, this.after(step.seq));
    this.rows.set(step.id, { step, element });
    return true;
  }

  /** Draws the rows held so far, in one fragment; later steps are drawn as they come. */
  draw(): void {
    if (this.drawn) return;
    this.drawn = true;
    const fragment = document.createDocumentFragment();
    for (const [id, row] of [...this.rows].sort(([, a], [, b]) => a.step.seq - b.step.seq)) {
      const element = this.render(row.step);
      this.rows.set(id, { step: row.step, element });
      fragment.appendChild(element);
    }
    this.element.replaceChildren(fragment);
    this.element.style.minHeight = '';
  }

  /** The task `taskId` became known: the row that started it draws its block. */
  refreshTask(taskId: string): boolean {
    for (const [id, row] of this.rows) {
      if (row.step.taskId !== taskId || !row.element) continue;
      const element = this.render(row.step);
      row.element.replaceWith(element);
      this.rows.set(id, { step: row.step, element });
      return true;
    }
    return false;
  }

  /** A row, or for a step that started a known task, that task's block in the row. */
  private render(step: StepView): HTMLElement {
    const block = step.taskId ? this.nested?.(step.taskId) : undefined;
    // Never a block inside itself (an id that names this list's own task or an ancestor's).
    if (!block || block.contains(this.element)) return renderStep(step);
    return h('li', { class: 'step step-nested-task', 'data-step-id': step.id, 'data-state': step.state }, block);
  }

  /** The row a step beginning at `seq` goes before (null: at the end). New steps come last, as a rule. */
  private after(seq: number): Element | null {
    const last = this.element.lastElementChild;
    if (!last || this.seqOf(last) < seq) return null;
    for (const child of this.element.children) if (this.seqOf(child) > seq) return child;
    return null;
  }

  private seqOf(element: Element): number {
    const id = (element as HTMLElement).dataset.stepId ?? '';
    return this.rows.get(id)?.step.seq ?? Number.POSITIVE_INFINITY;
  }
}
