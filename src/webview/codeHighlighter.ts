import { highlight } from './markdown';

/** How far outside the visible part of the transcript a block is coloured ahead of scrolling. */
const AHEAD = '50% 0px';

/**
 * Colours the code blocks of rendered replies when they come near the visible part of the
 * transcript, one block per task, so a long reply shows at once and is never a long freeze.
 *
 * Why lazy: highlight.js is most of the cost of a long reply (a 2,000-line reply with 20 blocks
 * took seconds to render when every block was highlighted up front), and most blocks of such a
 * reply are off-screen. A block is coloured once; a block never scrolled to costs nothing. Its
 * text does not change, so Copy / Insert / Propose read the same code either way.
 *
 * The highlighted markup comes from our own highlighter over escaped text; it still passes the
 * reply sanitizer before it joins the page (defence in depth, as for the reply itself).
 */
export class CodeHighlighter {
  private observer: IntersectionObserver | undefined;
  private readonly queue: HTMLElement[] = [];
  private scheduled = false;
  private readonly waiting = new Set<HTMLElement>();

  constructor(private readonly clean: (root: DocumentFragment) => void) {}

  /** The scroll container the replies live in (the transcript). Blocks seen before it are kept. */
  attach(root: HTMLElement): void {
    this.observer?.disconnect();
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { root, rootMargin: AHEAD });
    for (const code of this.waiting) this.observer.observe(code);
  }

  /**
   * Registers the blocks under `container` still to be coloured (it may not be in the page yet).
   * The observed element is the `.code-block`, not its `code`: a block off-screen skips the layout
   * of its contents (content-visibility in the sidebar's CSS), but always has a box of its own.
   */
  watch(container: ParentNode): void {
    for (const code of container.querySelectorAll<HTMLElement>('code[data-hl]')) {
      const block = code.closest<HTMLElement>('.code-block') ?? code;
      this.waiting.add(block);
      this.observer?.observe(block);
    }
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      const block = entry.target as HTMLElement;
      if (!entry.isIntersecting) {
        // Removed from the page (session switch, a re-drawn transcript): forget it.
        if (!block.isConnected) this.forget(block);
        continue;
      }
      this.forget(block);
      const code = block.matches('code[data-hl]') ? block : block.querySelector<HTMLElement>('code[data-hl]');
      if (code) this.queue.push(code);
    }
    this.schedule();
  }

  private forget(code: HTMLElement): void {
    this.observer?.unobserve(code);
    this.waiting.delete(code);
  }

  /** One block per task: input and other messages get the main thread between blocks. */
  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      const code = this.queue.shift();
      if (code?.isConnected) this.colour(code);
      this.schedule();
    }, 0);
  }

  private colour(code: HTMLElement): void {
    const language = code.dataset.hl ?? '';
    const template = document.createElement('template');
    template.innerHTML = highlight(code.textContent ?? '', language);
    this.clean(template.content);
    code.replaceChildren(template.content);
    code.removeAttribute('data-hl');
    code.dataset.highlighted = language;
  }
}
