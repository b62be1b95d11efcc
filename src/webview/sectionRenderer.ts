import { collectReferences, type ReplyEnv } from './markdown';
import { splitReply, type ReplySection } from './replySections';

/** Replies up to this many lines render at once: parsing them is cheaper than a frame. */
const SYNC_LINES = 300;
/** Lines per section (at least): small enough to render in a slice, big enough to keep the count low. */
const SECTION_LINES = 40;
/** Lines rendered at once at the end of a long reply, at least (more when the view is taller). */
const TAIL_LINES = 120;
/** How far outside the transcript's view a pending section is rendered ahead of scrolling. */
const AHEAD = '100% 0px';
/** Work per slice before giving the main thread back (input, streaming, highlighting). */
const SLICE_MS = 8;
/** Within this many pixels of the end the transcript counts as following the bottom. */
const FOLLOW_SLACK_PX = 4;

interface Pending {
  placeholder: HTMLElement;
  text: string;
  env: ReplyEnv;
}

/**
 * Renders long replies section by section (sections from replySections.ts, which render to the
 * same HTML one by one as the whole reply at once) so that showing a 2,000-line reply costs what
 * the person can see. The end of the reply is rendered at once: the transcript follows the bottom,
 * so that is what a person reading along sees (and a reply arriving while they read further up is
 * out of view entirely). Every other section starts as a placeholder sized from its line counts
 * (code and prose lines, fences) and is rendered in small idle slices, nearest the end first, or at
 * once when it comes near the view (the person scrolls up). A placeholder is replaced by the
 * section's own nodes, so once all are rendered the reply's DOM is the whole render's.
 *
 * While the transcript follows the bottom, a long reply growing anywhere (a section rendered
 * above in place of its estimate, a code block laid out for real as it nears the view) keeps it at
 * the bottom: a ResizeObserver on the reply (and on the transcript, whose height changes with the
 * composer) re-pins it before paint. Whether it follows is read from scroll events, not from the
 * geometry at the time of the change, which that change has already moved. A scroll event is
 * dispatched a frame after the scroll that caused it, and content can grow in between (an
 * off-screen block laid out for real): so a scroll that left the view at or below where it was
 * last pinned keeps following, and only a move up (the person scrolling) stops it. The browser's
 * scroll anchoring then keeps what they read in place.
 */
export class SectionRenderer {
  private container: HTMLElement | undefined;
  private observer: IntersectionObserver | undefined;
  private readonly queue: Pending[] = [];
  private readonly byPlaceholder = new Map<Element, Pending>();
  private scheduled = false;
  /** Whether the transcript follows its end (see the class comment). */
  private following = true;
  /** Where the transcript was last seen following its end: a scroll up from here stops following. */
  private pinnedTop = 0;
  /** Made on first use: the module then loads where there is no ResizeObserver (the unit tier's DOM). */
  private resizedObserver: ResizeObserver | undefined;
  private get resized(): ResizeObserver {
    this.resizedObserver ??= new ResizeObserver((entries) => {
      // A reply taken out of the page (session switch) is no longer watched.
      for (const entry of entries) if (!entry.target.isConnected) this.resized.unobserve(entry.target);
      this.keepAtBottom();
    });
    return this.resizedObserver;
  }

  constructor(private readonly renderFragment: (text: string, env: ReplyEnv) => DocumentFragment) {}

  /** The scroll container of the replies (the transcript). Placeholders made before it are kept. */
  attach(container: HTMLElement): void {
    this.container = container;
    this.following = atEnd(container);
    this.pinnedTop = container.scrollTop;
    container.addEventListener('scroll', () => this.onScroll(container), { passive: true });
    if (typeof ResizeObserver === 'function') this.resized.observe(container);
    this.observer?.disconnect();
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { root: container, rootMargin: AHEAD });
    for (const pending of this.queue) this.observer.observe(pending.placeholder);
  }

  /**
   * Renders `text` into `root` section by section; false (and nothing done) when the reply is
   * short or has no safe place to split, and should be rendered at once.
   */
  render(root: HTMLElement, text: string): boolean {
    if (!longerThan(text, SYNC_LINES)) return false;
    const parts = splitReply(text, SECTION_LINES);
    if (parts.length < 2) return false;
    const env: ReplyEnv = {};
    collectReferences(
      parts.map((p) => p.text),
      env,
    );
    // A tall view shows more lines than TAIL_LINES: a code line is ~16px in the sidebar.
    const tail = Math.max(TAIL_LINES, Math.ceil((this.container?.clientHeight ?? 0) / 8));
    let first = parts.length;
    for (let lines = 0; first > 0 && lines < tail;) lines += parts[--first].lines;
    const deferred: Pending[] = [];
    for (let i = 0; i < first; i++) {
      const placeholder = document.createElement('div');
      placeholder.className = 'md-pending';
      placeholder.setAttribute('aria-busy', 'true');
      placeholder.style.height = estimateHeight(parts[i]);
      root.appendChild(placeholder);
      deferred.push({ placeholder, text: parts[i].text, env });
    }
    for (let i = first; i < parts.length; i++) root.appendChild(this.renderFragment(parts[i].text, env));
    this.resized.observe(root);
    // Nearest the end first: that is where the person is, and what scrolling up reaches first.
    for (const pending of deferred.reverse()) {
      this.queue.push(pending);
      this.byPlaceholder.set(pending.placeholder, pending);
      this.observer?.observe(pending.placeholder);
    }
    this.schedule();
    return true;
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      const pending = this.byPlaceholder.get(entry.target);
      if (pending && entry.isIntersecting) this.renderPending(pending);
      else if (pending && !entry.target.isConnected) this.drop(pending);
    }
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    const run = (deadline?: IdleDeadline) => {
      this.scheduled = false;
      const until = performance.now() + Math.min(SLICE_MS, deadline?.timeRemaining() ?? SLICE_MS);
      do {
        const next = this.queue[0];
        if (!next) break;
        this.renderPending(next);
      } while (performance.now() < until);
      this.schedule();
    };
    // Idle time first; a busy view still gets there (the timeout), and a webview without
    // requestIdleCallback falls back to a task.
    if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 50 });
    else setTimeout(run, 0);
  }

  private renderPending(pending: Pending): void {
    this.drop(pending);
    const { placeholder } = pending;
    // Removed from the page (session switch, a re-drawn transcript): nothing to render.
    if (!placeholder.isConnected) return;
    placeholder.replaceWith(this.renderFragment(pending.text, pending.env));
    this.keepAtBottom();
  }

  private onScroll(view: HTMLElement): void {
    this.following = atEnd(view) || (this.following && view.scrollTop >= this.pinnedTop - FOLLOW_SLACK_PX);
    if (this.following) this.pinnedTop = view.scrollTop;
  }

  private keepAtBottom(): void {
    const view = this.container;
    if (!view || !this.following) return;
    if (!atEnd(view)) view.scrollTop = view.scrollHeight;
    this.pinnedTop = view.scrollTop;
  }

  private drop(pending: Pending): void {
    this.byPlaceholder.delete(pending.placeholder);
    this.observer?.unobserve(pending.placeholder);
    const at = this.queue.indexOf(pending);
    if (at >= 0) this.queue.splice(at, 1);
  }
}

/** Whether the transcript shows its end. */
function atEnd(view: HTMLElement): boolean {
  return view.scrollTop + view.clientHeight >= view.scrollHeight - FOLLOW_SLACK_PX;
}

/** Whether `text` has more than `lines` lines (stops counting there). */
function longerThan(text: string, lines: number): boolean {
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return false;
  }
  return true;
}

/**
 * A section's height before it is rendered, from what it is made of: code lines are 0.92em ×
 * 1.4 (sidebar.css) plus each block's toolbar, padding, borders and margins; a prose line (a
 * paragraph, an item, a table row, the blank lines between) about 1.5em, wrapping included on
 * average. Only an estimate: the real height replaces it when the section renders.
 */
function estimateHeight(section: ReplySection): string {
  const prose = Math.max(0, section.lines - section.codeLines - 2 * section.fences);
  return `calc(${section.codeLines} * 1.288em + ${section.fences} * (1.9em + 26px) + ${prose} * 1.5em)`;
}
