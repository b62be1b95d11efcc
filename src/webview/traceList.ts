import type { TraceEventView } from '../shared/protocol';
import { h, oncePerFrame, syncChildren, visibleRows } from './dom';
import { word } from './words';

const ROW_HEIGHT = 22;
const OVERSCAN = 10;

/**
 * A virtualised action trace: only the rows in view are in the DOM, so a task with 10,000 events
 * opens and appends in constant time. Rows have a fixed height; a selected row's inputs/outputs
 * show in a detail pane under the list instead of expanding in place (which would break the
 * fixed-height arithmetic). It is a listbox: click a row, or focus the list and use ↑/↓, Home/End
 * (Escape closes the detail). A row already drawn stays in place while live events arrive, so a
 * click on it is not lost to a redraw.
 */
export class TraceList {
  readonly element: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly detail: HTMLElement;
  private events: TraceEventView[] = [];
  private selectedSeq: number | undefined;
  /** The rows drawn now, by seq. */
  private drawn = new Map<number, HTMLElement>();
  /** Scroll events come many per frame: one render per frame. */
  private readonly schedule = oncePerFrame(() => this.render());

  constructor(private readonly onLoadOlder: (beforeSeq: number) => void) {
    this.spacer = h('div', { class: 'trace-spacer' });
    this.rows = h('div', { class: 'trace-rows' });
    this.viewport = h('div', { class: 'trace-viewport', tabindex: 0, role: 'listbox', 'aria-label': word('traceList') }, this.spacer, this.rows);
    this.detail = h('pre', { class: 'trace-detail', id: 'trace-detail', role: 'region', 'aria-label': word('traceSelected'), hidden: true });
    this.element = h('div', { class: 'trace' }, this.viewport, this.detail);
    this.viewport.addEventListener('scroll', () => this.schedule());
    this.viewport.addEventListener('keydown', (event) => this.onKey(event));
    this.rows.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('[data-seq]');
      if (row) this.select(Number(row.dataset.seq), { toggle: true });
    });
  }

  get size(): number {
    return this.events.length;
  }

  /** Replace the content with a page (oldest first), e.g. when the task is opened. */
  reset(events: TraceEventView[], hasMore: boolean): void {
    this.events = [...events];
    this.hasMore = hasMore;
    this.selectedSeq = undefined;
    this.drawn = new Map(); // another task's rows may share seqs with these
    this.showDetail();
    this.render();
    this.viewport.scrollTop = this.viewport.scrollHeight;
  }

  /** Prepend an older page (from paging backwards). */
  prepend(events: TraceEventView[], hasMore: boolean): void {
    const before = this.viewport.scrollTop;
    this.events = [...events, ...this.events];
    this.hasMore = hasMore;
    this.render();
    this.viewport.scrollTop = before + events.length * ROW_HEIGHT;
  }

  /** Append one live event; follows the tail if the user was at the bottom. */
  append(event: TraceEventView): void {
    const atBottom = this.viewport.scrollTop + this.viewport.clientHeight >= this.viewport.scrollHeight - ROW_HEIGHT;
    const last = this.events[this.events.length - 1];
    if (last && last.seq >= event.seq) return; // already have it (a page raced the live event)
    this.events.push(event);
    this.render();
    if (atBottom) this.viewport.scrollTop = this.viewport.scrollHeight;
  }

  private hasMore = false;

  private render(): void {
    this.spacer.style.height = `${this.events.length * ROW_HEIGHT}px`;
    const { first, last } = visibleRows(this.viewport, this.events.length, ROW_HEIGHT, OVERSCAN, 300);
    const drawn = new Map<number, HTMLElement>();
    for (let i = first; i < last; i++) {
      const event = this.events[i];
      const row = this.drawn.get(event.seq) ?? this.row(event);
      const selected = event.seq === this.selectedSeq;
      row.classList.toggle('selected', selected);
      row.setAttribute('aria-selected', String(selected));
      drawn.set(event.seq, row);
    }
    this.drawn = drawn;
    this.rows.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    syncChildren(this.rows, [...drawn.values()]);
    if (this.selectedSeq !== undefined && drawn.has(this.selectedSeq)) this.viewport.setAttribute('aria-activedescendant', rowId(this.selectedSeq));
    else this.viewport.removeAttribute('aria-activedescendant');
    if (first === 0 && this.hasMore && this.events.length > 0) {
      this.hasMore = false; // one request in flight at a time
      this.onLoadOlder(this.events[0].seq);
    }
  }

  private row(event: TraceEventView): HTMLElement {
    const duration = event.durationMs === undefined ? '' : ` · ${word('traceDuration', event.durationMs)}`;
    return h(
      'div',
      { class: `trace-row trace-${event.type}`, id: rowId(event.seq), role: 'option', 'data-seq': event.seq, title: event.summary },
      h('span', { class: 'trace-type' }, event.type),
      h('span', { class: 'trace-summary' }, event.summary + duration),
    );
  }

  private onKey(event: KeyboardEvent): void {
    if (this.events.length === 0) return;
    const at = this.events.findIndex((e) => e.seq === this.selectedSeq);
    const inView = () => visibleRows(this.viewport, this.events.length, ROW_HEIGHT, 0, 300);
    let index: number | undefined;
    if (event.key === 'ArrowDown') index = at === -1 ? inView().first : Math.min(at + 1, this.events.length - 1);
    else if (event.key === 'ArrowUp') index = at === -1 ? Math.max(inView().last - 1, 0) : Math.max(at - 1, 0);
    else if (event.key === 'Home') index = 0;
    else if (event.key === 'End') index = this.events.length - 1;
    else if (event.key === 'Escape' && at !== -1) {
      this.select(undefined);
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    if (index === undefined) return;
    event.preventDefault();
    this.select(this.events[index].seq);
    this.scrollIntoView(index);
  }

  /** Scrolls just enough for row `index` to be inside the viewport. */
  private scrollIntoView(index: number): void {
    const top = index * ROW_HEIGHT;
    if (top < this.viewport.scrollTop) this.viewport.scrollTop = top;
    else if (top + ROW_HEIGHT > this.viewport.scrollTop + this.viewport.clientHeight) this.viewport.scrollTop = top + ROW_HEIGHT - this.viewport.clientHeight;
    this.render();
  }

  private select(seq: number | undefined, options: { toggle?: boolean } = {}): void {
    this.selectedSeq = options.toggle && this.selectedSeq === seq ? undefined : seq;
    this.showDetail();
    this.render();
  }

  private showDetail(): void {
    const event = this.selectedSeq === undefined ? undefined : this.events.find((e) => e.seq === this.selectedSeq);
    this.detail.hidden = !event?.detail;
    this.detail.textContent = event?.detail ?? '';
  }
}

const rowId = (seq: number) => `trace-row-${seq}`;
