/**
 * A streaming reply as Markdown while it streams: the text is cut into the blocks that are
 * complete (`settled`, rendered once as Markdown and never again) and the block still forming
 * (the tail, shown as text until it is complete). A block is complete once a later one has begun
 * where `splitReply` (replySections.ts) may cut: after a blank line, at column 0, outside any code
 * fence, not a list's continuation. So a paragraph renders when the next one starts, a code block
 * when its fence closes and something follows, and the rendering of the settled part is exactly
 * what the whole reply renders to (the sections' rule), so nothing jumps when the reply commits.
 *
 * Cost: only the tail is scanned, and only when a delta brings a newline or begins a line (no
 * split point can appear otherwise), so a long reply costs what its last block costs, not what it all does.
 * Pure (no DOM): the unit tier tests it in Node (test/unit/webview/streamMarkdown.test.ts).
 */
import { normalizeSource, splitReply } from './replySections';

export class MarkdownStream {
  /** Everything streamed so far (newlines normalised as markdown-it reads them). */
  private text = '';
  /** Where the tail begins: everything before it was given out by `push` as settled. */
  private settledAt = 0;

  /**
   * Adds a delta; returns the Markdown that became complete with it (to render and append), or
   * undefined when the tail only grew.
   */
  push(delta: string): string | undefined {
    const normalized = normalizeSource(delta);
    // A split point is a line's first character: it comes with a newline, or right after one.
    const startsLine = this.text.endsWith('\n');
    this.text += normalized;
    if (!startsLine && !normalized.includes('\n')) return undefined;
    const tail = this.text.slice(this.settledAt);
    const sections = splitReply(tail, 1);
    if (sections.length < 2) return undefined;
    // Every section but the last is complete. The last runs to the end of the text, so it is the
    // tail's suffix of its length (blank lines before the first section belong to the settled part).
    const last = sections[sections.length - 1]!;
    const settled = tail.slice(0, tail.length - last.text.length);
    this.settledAt += settled.length;
    return settled;
  }

  /** The block still forming (shown as text). */
  get tail(): string {
    return this.text.slice(this.settledAt);
  }

  /** All that streamed. */
  get all(): string {
    return this.text;
  }
}
