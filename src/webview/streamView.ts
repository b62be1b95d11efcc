import type { HostMessage, StreamDeltaView } from '../shared/protocol';
import { h } from './dom';
import { renderStreamedBlock } from './replyView';
import { MarkdownStream } from './streamMarkdown';
import { toolLine } from './toolLine';
import { word } from './words';

/** Within this many pixels of the end, the transcript counts as "at the bottom" and follows new text. */
const FOLLOW_SLACK_PX = 24;

interface LiveReply {
  turnId: string;
  text: string;
  tools: Map<string, { name: string; preview: string }>;
}

/** Lines per block of a streaming bubble's text (see StreamText). */
const LINES_PER_CHUNK = 16;

/**
 * The growing text of a streaming bubble, as a run of blocks of LINES_PER_CHUNK lines, each one
 * Text node that grows in place. Why blocks: the browser lays out a changed text node's whole
 * paragraph again, so one text node growing to a long reply made every chunk cost the layout of
 * everything so far (as much as re-rendering the message); with blocks, a chunk lays out only
 * the last one. A block ends right after a newline, so the text reads exactly as streamed.
 */
class StreamText {
  private current: Text | undefined;
  private lines = 0;

  constructor(readonly element: HTMLElement) {}

  append(text: string): void {
    let rest = text;
    while (rest) {
      if (!this.current || this.lines >= LINES_PER_CHUNK) this.startChunk();
      const current = this.current as Text;
      const newline = rest.indexOf('\n');
      if (newline < 0) {
        current.appendData(rest);
        return;
      }
      current.appendData(rest.slice(0, newline + 1));
      this.lines++;
      rest = rest.slice(newline + 1);
    }
  }

  private startChunk(): void {
    this.current = document.createTextNode('');
    this.lines = 0;
    this.element.appendChild(h('div', { class: 'stream-chunk' }, this.current));
  }
}

/**
 * A live bubble in the DOM: the blocks of its text that are complete rendered as Markdown, once
 * each (streamMarkdown.ts), then the block still forming as text growing in place (StreamText);
 * tool lines are patched in place.
 */
class Bubble {
  readonly element: HTMLElement;
  readonly tools: HTMLElement;
  private readonly body: HTMLElement;
  private readonly markdown = new MarkdownStream();
  private tail: StreamText;

  constructor(
    readonly turnId: string,
    /** In a task's block (its words while it works) rather than the transcript. */
    inBlock: boolean,
  ) {
    this.tail = new StreamText(h('div', { class: 'stream-tail' }));
    this.body = h('div', { class: 'msg-text md' }, this.tail.element);
    this.tools = h('div', { class: 'stream-tools' });
    this.element = h(
      'div',
      {
        class: `msg msg-assistant msg-streaming${inBlock ? ' block-said' : ''}`,
        'data-role': 'streaming',
        'data-turn-id': turnId,
        'aria-busy': 'true',
      },
      this.body,
      inBlock ? null : this.tools,
    );
  }

  append(text: string): void {
    const settled = this.markdown.push(text);
    if (settled === undefined) {
      this.tail.append(text);
      return;
    }
    // A block completed: it renders once, and the tail starts again with what follows it.
    this.body.insertBefore(renderStreamedBlock(settled), this.tail.element);
    const tail = new StreamText(h('div', { class: 'stream-tail' }));
    tail.append(this.markdown.tail);
    this.tail.element.replaceWith(tail.element);
    this.tail = tail;
  }

  /** The turn ended (a task's words stay in its block): the rest renders as Markdown too. */
  finish(): void {
    const rest = this.markdown.tail;
    this.tail.element.replaceWith(renderStreamedBlock(rest));
    this.element.classList.remove('msg-streaming');
    this.element.removeAttribute('aria-busy');
  }
}

/**
 * The streaming side of the sidebar: a live bubble for each running turn that is on screen, and
 * the Stop button that replaces Send while a turn runs in the shown session.
 *
 * The shown conversation's turn streams into a bubble at the end of the transcript, which the
 * committed message replaces when it arrives (the turn's end removes whatever is left: a turn
 * that only ran tools). A task's turn streams into its block (`blockArea`: a task's lane is shown
 * as the conversation that started it), so the model's words while the task works are on screen,
 * not only behind a spinner; they stay there, rendered, when its turn ends, until its next turn
 * speaks or the task ends (the step rows say what it did, the summary where it got: taskBlock.ts). Either way the blocks of the text that are complete
 * render as Markdown as they complete, and the block forming grows as text (Bubble); a bubble is
 * never re-rendered. The transcript follows the bottom unless the person scrolled up to read.
 */
export class StreamView {
  private readonly live = new Map<string, LiveReply>();
  private readonly running = new Map<string, string>();
  /** Bubbles drawn, by session. */
  private readonly bubbles = new Map<string, Bubble>();
  private readonly stopButton: HTMLElement;
  private stopping = false;

  constructor(
    private readonly transcript: HTMLElement,
    private readonly sendButton: HTMLElement,
    private readonly selected: () => string | undefined,
    /** Asks the host to stop the turn; a refusal (said by the host) gives Stop back. */
    private readonly onStop: (sessionId: string) => Promise<unknown>,
    /** Where a session's words go when it is not the conversation shown: its task's block (undefined: not drawn). */
    private readonly blockArea: (sessionId: string) => HTMLElement | undefined = () => undefined,
  ) {
    this.stopButton = h('vscode-button', { id: 'stop', hidden: true, title: word('turnStopTitle') }, word('turnStop'));
    this.stopButton.addEventListener('click', () => this.stop());
    sendButton.insertAdjacentElement('afterend', this.stopButton);
  }

  /** From `init`: the sessions whose turn is running right now. */
  reset(running: Array<{ sessionId: string; turnId: string }>): void {
    this.live.clear();
    this.running.clear();
    for (const r of running) this.running.set(r.sessionId, r.turnId);
    for (const bubble of this.bubbles.values()) bubble.element.remove();
    this.bubbles.clear();
    this.renderComposer();
  }

  /** Handles the streaming messages; true when it took the message. */
  onMessage(message: HostMessage): boolean {
    if (message.type === 'turnState') {
      if (message.running) {
        this.running.set(message.sessionId, message.turnId);
      } else if (this.running.get(message.sessionId) === message.turnId) {
        this.running.delete(message.sessionId);
        this.end(message.sessionId, message.turnId);
      }
      this.renderComposer();
      return true;
    }
    if (message.type === 'streamDelta') {
      this.append(message.sessionId, message.turnId, message.delta);
      return true;
    }
    return false;
  }

  /** The committed reply is arriving: it takes the bubble's place (a task's words stay in its block, rendered). Call before appending it. */
  replaceWithCommitted(sessionId: string): void {
    this.live.delete(sessionId);
    this.settle(sessionId);
  }

  /** The transcript was re-drawn (session switch, init): put the shown session's bubble back. */
  redraw(): void {
    for (const [sessionId, bubble] of this.bubbles) if (!bubble.element.isConnected) this.bubbles.delete(sessionId);
    const id = this.selected();
    const reply = id ? this.live.get(id) : undefined;
    if (id && reply) this.ensureBubble(id, reply);
    this.renderComposer();
  }

  /** Whether the transcript is scrolled to (near) its end: new content then keeps it there. */
  atBottom(): boolean {
    const t = this.transcript;
    return t.scrollTop + t.clientHeight >= t.scrollHeight - FOLLOW_SLACK_PX;
  }

  /** Runs `change` on the transcript and keeps the end in view if it was in view before. */
  follow(change: () => void): void {
    const stick = this.atBottom();
    change();
    if (!stick) return;
    this.transcript.scrollTop = this.transcript.scrollHeight;
    // Blocks of a rendered reply that come into view get their real size only at the next frame
    // (content-visibility: off-screen blocks are laid out lazily): stay at the end through that,
    // unless the person scrolled away meanwhile.
    const pinned = this.transcript.scrollTop;
    requestAnimationFrame(() => {
      if (Math.abs(this.transcript.scrollTop - pinned) <= FOLLOW_SLACK_PX) this.transcript.scrollTop = this.transcript.scrollHeight;
    });
  }

  private append(sessionId: string, turnId: string, delta: StreamDeltaView): void {
    let reply = this.live.get(sessionId);
    if (!reply || reply.turnId !== turnId) {
      reply = { turnId, text: '', tools: new Map() };
      this.live.set(sessionId, reply);
    }
    if (delta.kind === 'text') reply.text += delta.text;
    else reply.tools.set(delta.callId, { name: delta.name, preview: delta.preview });
    const shown = sessionId === this.selected();
    // In a block, a tool call being written is already its step row.
    if (!shown && delta.kind !== 'text') return;
    this.follow(() => {
      const drawn = this.ensureBubble(sessionId, reply);
      if (!drawn || drawn.fresh) return;
      if (delta.kind === 'text') drawn.bubble.append(delta.text);
      else this.patchTool(drawn.bubble, delta.callId, delta.name, delta.preview);
    });
  }

  private end(sessionId: string, turnId: string): void {
    if (this.live.get(sessionId)?.turnId === turnId) this.live.delete(sessionId);
    if (this.bubbles.get(sessionId)?.turnId === turnId) this.settle(sessionId);
  }

  /** A turn's bubble after its turn: gone from the transcript, kept (rendered) in a task's block. */
  private settle(sessionId: string): void {
    const bubble = this.bubbles.get(sessionId);
    if (!bubble) return;
    if (bubble.element.classList.contains('block-said')) {
      if (bubble.element.classList.contains('msg-streaming')) this.follow(() => bubble.finish());
      return;
    }
    bubble.element.remove();
    this.bubbles.delete(sessionId);
  }

  /**
   * The session's bubble for this turn, made where the session shows (undefined: it does not);
   * a bubble made now (`fresh`) already holds all the turn said so far.
   */
  private ensureBubble(sessionId: string, reply: LiveReply): { bubble: Bubble; fresh: boolean } | undefined {
    const { turnId } = reply;
    const kept = this.bubbles.get(sessionId);
    if (kept?.turnId === turnId && kept.element.isConnected) return { bubble: kept, fresh: false };
    const inTranscript = sessionId === this.selected();
    const area = inTranscript ? this.transcript : this.blockArea(sessionId);
    if (!area) return undefined;
    kept?.element.remove();
    const bubble = new Bubble(turnId, !inTranscript);
    if (inTranscript) {
      this.transcript.querySelector('.empty')?.remove();
      this.transcript.appendChild(bubble.element);
    } else area.replaceChildren(bubble.element);
    this.bubbles.set(sessionId, bubble);
    if (reply.text) bubble.append(reply.text);
    if (inTranscript) for (const [callId, tool] of reply.tools) this.patchTool(bubble, callId, tool.name, tool.preview);
    return { bubble, fresh: true };
  }

  private patchTool(bubble: Bubble, callId: string, name: string, preview: string): void {
    let line = [...bubble.tools.children].find((el) => (el as HTMLElement).dataset.callId === callId) as HTMLElement | undefined;
    if (!line) {
      line = h('div', { class: 'stream-tool', 'data-call-id': callId });
      bubble.tools.appendChild(line);
    }
    // Words for people, never the call's name or its JSON (toolLine.ts); some calls show nothing.
    const text = toolLine(name, preview);
    line.hidden = !text;
    line.replaceChildren(...(text ?? []).map((part) => (typeof part === 'string' ? part : h('code', {}, part.code))));
  }

  private stop(): void {
    const id = this.selected();
    if (!id || !this.running.has(id) || this.stopping) return;
    this.stopping = true;
    this.stopButton.setAttribute('disabled', '');
    this.onStop(id).catch(() => {
      this.stopping = false;
      this.stopButton.removeAttribute('disabled');
    });
  }

  /** Stop replaces Send while a turn runs in the shown session. */
  private renderComposer(): void {
    const id = this.selected();
    const running = id !== undefined && this.running.has(id);
    if (!running) {
      this.stopping = false;
      this.stopButton.removeAttribute('disabled');
    }
    this.stopButton.hidden = !running;
    this.sendButton.hidden = running;
  }
}
