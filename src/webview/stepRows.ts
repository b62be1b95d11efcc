import type { StepKind, StepText, StepView } from '../shared/threadProtocol';
import type { WebviewWordKey } from '../shared/webviewWords';
import { h } from './dom';
import { word } from './words';

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
  rejection: 'circle-slash',
  notice: 'info',
  error: 'warning',
  tool: 'tools',
};

const STATE_WORDS: Record<StepView['state'], WebviewWordKey | undefined> = { running: 'stepInProgress', done: undefined, failed: 'stepFailed' };

/** A row's text: words as text, literals (a command, a query) as code; never parsed as HTML. */
export function renderStepText(text: StepText): HTMLElement {
  const span = document.createElement('span');
  span.className = 'step-text';
  for (const part of text) {
    if (typeof part === 'string') span.append(part);
    else {
      const code = document.createElement('code');
      code.textContent = part.code;
      span.append(code);
    }
  }
  return span;
}

/**
 * One step row. Its state is in its class and, for a screen reader, in words after the text.
 * Built with the DOM's own calls rather than `h`: a thread opens with hundreds of rows.
 */
export function renderStep(step: StepView): HTMLElement {
  const row = document.createElement('li');
  row.className = `step step-${step.state} step-${step.kind}`;
  row.setAttribute('data-step-id', step.id);
  row.setAttribute('data-state', step.state);
  const icon = document.createElement('span');
  icon.className = `step-icon codicon codicon-${ICONS[step.kind] ?? 'circle-small'}`;
  icon.setAttribute('aria-hidden', 'true');
  row.append(icon, renderStepText(step.text));
  if (step.note) row.append(h('span', { class: 'step-note' }, step.note));
  const state = STATE_WORDS[step.state];
  if (state) row.append(h('span', { class: 'visually-hidden' }, ` (${word(state)})`));
  return row;
}

/**
 * The block of a task a step started, to draw in the step's row; undefined while that task is not
 * known (the row is then plain words until `refreshTask`).
 */
export type NestedBlock = (taskId: string) => HTMLElement | undefined;

/** How many of a task's latest rows a block builds at first; earlier ones wait for "Show N earlier steps". */
export const LATEST_ROWS = 5;

/** The height a row not built yet is given (a one-line row), so a held list keeps about its size. */
const ROW_ESTIMATE_PX = 20;

/** How a list starts: held until `draw()` (the thread's block is not near the view), folded until opened. */
export interface StepListOptions {
  held?: boolean;
  folded?: boolean;
  /** The task's name, to name the controls for a screen reader ("Show 3 earlier steps of task …"). */
  taskName?: () => string;
}

/** One word for one, another for any other count (vscode.l10n has no plural forms). */
const counted = (n: number, one: WebviewWordKey, other: WebviewWordKey) => (n === 1 ? word(one) : word(other, n));

/**
 * A task's steps, in the order they began. A row is patched in place by id, and only by a newer
 * version of it (`rev`): a live step and the page of steps asked for when the block appeared can
 * arrive in either order. A step that started a task shows that task's block (`nested`).
 *
 * Only rows a person can see are built, so a thread of 50 blocks and 2,000 steps opens at the cost
 * of what it shows. A folded list (a task that had ended when its block was drawn) keeps its steps
 * as data and builds rows the first time it is opened; a held list waits for `draw()` at about its
 * height; an open list builds its latest LATEST_ROWS rows, and the earlier ones when the person
 * asks ("Show N earlier steps"). The rows built are always the newest ones, in order: a step that
 * began after the first built row is built where it belongs (a live step: one row appended, nothing
 * else touched); an older one waits with the earlier ones.
 */
export class StepList {
  /** The rows (`ol.steps`). */
  readonly element: HTMLOListElement;
  /** Folds and unfolds the rows; shown once there is a step. */
  readonly toggle: HTMLButtonElement;
  /** "Show N earlier steps": builds the rows not built yet, before the others. */
  readonly earlier: HTMLButtonElement;
  private readonly rows = new Map<string, { step: StepView; element?: HTMLElement }>();
  /** Steps without a row; each began before every step with one. */
  private unbuilt = 0;
  /** The seq of the first row built (Infinity: none). */
  private from = Number.POSITIVE_INFINITY;
  private drawn: boolean;
  private open: boolean;
  private earlierShown = 0;
  private toggleShown = '';
  private readonly taskName: (() => string) | undefined;

  constructor(
    private readonly nested?: NestedBlock,
    options: StepListOptions = {},
  ) {
    this.element = h('ol', { class: 'steps', 'aria-label': word('steps') });
    this.drawn = !options.held;
    this.open = !options.folded;
    this.taskName = options.taskName;
    this.toggle = h('button', { type: 'button', class: 'step-control steps-toggle', hidden: true });
    this.toggle.addEventListener('click', () => this.setOpen(!this.open));
    this.earlier = h('button', { type: 'button', class: 'step-control steps-earlier', hidden: true });
    this.earlier.addEventListener('click', () => this.showEarlier());
    this.element.hidden = !this.open;
    this.showToggle();
  }

  get size(): number {
    return this.rows.size;
  }

  /** Whether rows are built as steps come (the list is open and not held). */
  get isDrawn(): boolean {
    return this.drawn && this.open;
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Whether a step without a row started a task (that task's block is not drawn yet). */
  get hidesTasks(): boolean {
    for (const row of this.rows.values()) if (row.step.taskId && !row.element) return true;
    return false;
  }

  /** Adds or patches a row; false when the row already shows this version or a newer one. */
  upsert(step: StepView): boolean {
    const changed = this.take(step);
    if (changed) this.settle();
    return changed;
  }

  /** A page of steps (the task's steps so far): only the rows the list shows are built. */
  page(steps: readonly StepView[]): boolean {
    let changed = false;
    for (const step of steps) changed = this.take(step) || changed;
    if (changed) this.settle();
    return changed;
  }

  /** Draws the held list: its latest rows, in one fragment; later steps are built as they come. */
  draw(): void {
    if (this.drawn) return;
    this.drawn = true;
    this.element.style.minHeight = '';
    this.settle();
  }

  /** Opens (building the latest rows the first time) or folds the list. */
  setOpen(open: boolean): void {
    if (open === this.open) return;
    this.open = open;
    this.element.hidden = !open;
    this.showToggle();
    this.settle();
  }

  /** Builds every row not built yet (opening the list), before the others, in order. */
  showEarlier(): void {
    const hadFocus = this.earlier.isConnected && document.activeElement === this.earlier;
    this.open = true;
    this.drawn = true;
    this.element.hidden = false;
    this.element.style.minHeight = '';
    this.showToggle();
    const first = this.build(this.unbuilt);
    this.settle();
    // The control is gone: a keyboard user goes on from the first row it brought.
    if (hadFocus && first) {
      first.tabIndex = -1;
      first.focus();
    }
  }

  /** The task `taskId` became known: the row that started it draws its block. */
  refreshTask(taskId: string): boolean {
    for (const row of this.rows.values()) {
      if (row.step.taskId !== taskId || !row.element) continue;
      const element = this.render(row.step);
      row.element.replaceWith(element);
      row.element = element;
      return true;
    }
    return false;
  }

  /** Keeps `step` and builds its row if it belongs among the rows built; true when something changed. */
  private take(step: StepView): boolean {
    const kept = this.rows.get(step.id);
    if (kept && kept.step.rev >= step.rev) return false;
    if (kept) {
      kept.step = step;
      if (kept.element) {
        const element = this.render(step);
        kept.element.replaceWith(element);
        kept.element = element;
      }
      return true;
    }
    // Rows are built from the first built one on (none built yet: `from` is Infinity), open or not.
    if (step.seq >= this.from) {
      const element = this.render(step);
      this.element.insertBefore(element, this.after(step.seq));
      this.rows.set(step.id, { step, element });
    } else {
      this.rows.set(step.id, { step });
      this.unbuilt++;
    }
    if (this.rows.size === 1) this.showToggle();
    return true;
  }

  /** After steps came or the list opened: the latest rows built, the controls saying what waits. */
  private settle(): void {
    if (this.isDrawn) this.build(Math.min(this.unbuilt, LATEST_ROWS - (this.rows.size - this.unbuilt)));
    else if (this.open) this.element.style.minHeight = `${Math.min(this.rows.size, LATEST_ROWS + 1) * ROW_ESTIMATE_PX}px`;
    else this.showToggle();
    const waiting = this.isDrawn ? this.unbuilt : 0;
    if (waiting === this.earlierShown) return;
    this.earlierShown = waiting;
    this.earlier.hidden = waiting === 0;
    this.name(this.earlier, counted(waiting, 'stepsShowEarlierOne', 'stepsShowEarlier'));
  }

  /** Builds the latest `count` rows not built yet, in one fragment before the rows built; the first of them. */
  private build(count: number): HTMLElement | undefined {
    if (count <= 0) return undefined;
    const waiting = [...this.rows.values()].filter((row) => !row.element).sort((a, b) => a.step.seq - b.step.seq);
    const fragment = document.createDocumentFragment();
    for (const row of waiting.slice(waiting.length - count)) {
      row.element = this.render(row.step);
      fragment.appendChild(row.element);
    }
    const first = fragment.firstChild as HTMLElement;
    this.from = Math.min(this.from, waiting[waiting.length - count]!.step.seq);
    this.unbuilt -= count;
    this.element.insertBefore(fragment, this.element.firstChild);
    return first;
  }

  /** The fold control's words: what opening shows, or that it folds (written only when they change). */
  private showToggle(): void {
    const words = this.open ? word('stepsHide') : counted(this.rows.size, 'stepsShowOne', 'stepsShow');
    const shown = `${this.rows.size === 0}|${words}`;
    if (shown === this.toggleShown) return;
    this.toggleShown = shown;
    this.toggle.hidden = this.rows.size === 0;
    this.toggle.setAttribute('aria-expanded', String(this.open));
    this.name(this.toggle, words);
  }

  /** A control's words, and its accessible name with the task's (many blocks have the same controls). */
  private name(control: HTMLElement, words: string): void {
    control.textContent = words;
    if (this.taskName) control.setAttribute('aria-label', word('stepsControlOfTask', words, this.taskName()));
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
