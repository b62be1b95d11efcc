import type { TraceEventView } from '../shared/protocol';
import { clear, h, oncePerFrame, visibleRows } from './dom';

const ROW_HEIGHT = 22;
const OVERSCAN = 10;

/**
 * A virtualised action trace: only the rows in view are in the DOM, so a task with 10,000 events
 * opens and appends in constant time. Rows have a fixed height; a clicked row's inputs/outputs
 * show in a detail pane under the list instead of expanding in place (which would break the
 * fixed-height arithmetic).
 */
export class TraceList {
  readonly element: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly detail: HTMLElement;
  private events: TraceEventView[] = [];
  private selectedSeq: number | undefined;
  /** Scroll events come many per frame: one render per frame. */
  private readonly schedule = oncePerFrame(() => this.render());

  constructor(private readonly onLoadOlder: (beforeSeq: number) => void) {
    this.spacer = h('div', { class: 'trace-spacer' });
    this.rows = h('div', { class: 'trace-rows' });
    this.viewport = h('div', { class: 'trace-viewport', tabindex: 0 }, this.spacer, this.rows);
    this.detail = h('pre', { class: 'trace-detail', hidden: true });
    this.element = h('div', { class: 'trace' }, this.viewport, this.detail);
    this.viewport.addEventListener('scroll', () => this.schedule());
    this.rows.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('[data-seq]');
      if (row) this.select(Number(row.dataset.seq));
    });
  }

  get size(): number {
    return this.events.length;
  }

  /** Replace the content with a page (oldest first), e.g. when the task is opened. */
  reset(events: TraceEventView[], hasMore: boolean): void {
    this.events = [...events];
    this.hasMore = hasMore;
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
    clear(this.rows);
    this.rows.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    for (let i = first; i < last; i++) this.rows.appendChild(this.row(this.events[i]));
    if (first === 0 && this.hasMore && this.events.length > 0) {
      this.hasMore = false; // one request in flight at a time
      this.onLoadOlder(this.events[0].seq);
    }
  }

  private row(event: TraceEventView): HTMLElement {
    const duration = event.durationMs === undefined ? '' : ` · ${event.durationMs} ms`;
    return h(
      'div',
      { class: `trace-row trace-${event.type}${event.seq === this.selectedSeq ? ' selected' : ''}`, 'data-seq': event.seq, title: event.summary },
      h('span', { class: 'trace-type' }, event.type),
      h('span', { class: 'trace-summary' }, event.summary + duration),
    );
  }

  private select(seq: number): void {
    this.selectedSeq = this.selectedSeq === seq ? undefined : seq;
    const event = this.events.find((e) => e.seq === seq);
    this.detail.hidden = this.selectedSeq === undefined || !event?.detail;
    this.detail.textContent = this.selectedSeq === undefined ? '' : (event?.detail ?? '');
    this.render();
  }
}
