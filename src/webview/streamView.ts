import type { HostMessage, StreamDeltaView } from '../shared/protocol';
import { h } from './dom';
import { toolLine } from './toolLine';

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

/** The live bubble in the DOM: its text grows in place (StreamText), tool lines are patched in place. */
interface Bubble {
  turnId: string;
  element: HTMLElement;
  text: StreamText;
  tools: HTMLElement;
}

/**
 * The streaming side of the sidebar: one live "streaming" bubble per session for the running
 * turn's output, and the Stop button that replaces Send while a turn runs in the shown session.
 *
 * The bubble is never re-rendered: each piece of text is appended to the Text node of its last
 * block (StreamText, so a long reply costs the same per token at its end as at its start), and a tool's progress line is
 * patched in place. The committed message replaces the bubble when it arrives; the turn's end
 * removes whatever is left (a turn that only ran tools). The transcript follows the bottom
 * unless the person scrolled up to read.
 */
export class StreamView {
  private readonly live = new Map<string, LiveReply>();
  private readonly running = new Map<string, string>();
  private bubble: Bubble | undefined;
  private readonly stopButton: HTMLElement;
  private stopping = false;

  constructor(
    private readonly transcript: HTMLElement,
    private readonly sendButton: HTMLElement,
    private readonly selected: () => string | undefined,
    /** Asks the host to stop the turn; a refusal (said by the host) gives Stop back. */
    private readonly onStop: (sessionId: string) => Promise<unknown>,
  ) {
    this.stopButton = h('vscode-button', { id: 'stop', hidden: true, title: 'Stop the running turn; what it said so far is kept' }, 'Stop');
    this.stopButton.addEventListener('click', () => this.stop());
    sendButton.insertAdjacentElement('afterend', this.stopButton);
  }

  /** From `init`: the sessions whose turn is running right now. */
  reset(running: Array<{ sessionId: string; turnId: string }>): void {
    this.live.clear();
    this.running.clear();
    for (const r of running) this.running.set(r.sessionId, r.turnId);
    this.bubble = undefined;
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

  /** The committed reply is arriving: it takes the bubble's place. Call before appending it. */
  replaceWithCommitted(sessionId: string): void {
    this.live.delete(sessionId);
    if (sessionId === this.selected()) this.removeBubble();
  }

  /** The transcript was re-drawn (session switch, init): put the shown session's bubble back. */
  redraw(): void {
    this.bubble = undefined;
    const id = this.selected();
    const reply = id ? this.live.get(id) : undefined;
    if (reply) {
      const bubble = this.ensureBubble(reply.turnId);
      bubble.text.append(reply.text);
      for (const [callId, tool] of reply.tools) this.patchTool(bubble, callId, tool.name, tool.preview);
    }
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
    if (sessionId !== this.selected()) return;
    this.follow(() => {
      const bubble = this.ensureBubble(turnId);
      if (delta.kind === 'text') bubble.text.append(delta.text);
      else this.patchTool(bubble, delta.callId, delta.name, delta.preview);
    });
  }

  private end(sessionId: string, turnId: string): void {
    if (this.live.get(sessionId)?.turnId === turnId) this.live.delete(sessionId);
    if (sessionId === this.selected() && this.bubble?.turnId === turnId) this.removeBubble();
  }

  private ensureBubble(turnId: string): Bubble {
    if (this.bubble?.turnId === turnId && this.bubble.element.isConnected) return this.bubble;
    this.removeBubble();
    const text = new StreamText(h('div', { class: 'msg-text' }));
    const tools = h('div', { class: 'stream-tools' });
    const element = h(
      'div',
      { class: 'msg msg-assistant msg-streaming', 'data-role': 'streaming', 'data-turn-id': turnId, 'aria-busy': 'true' },
      text.element,
      tools,
    );
    this.transcript.querySelector('.empty')?.remove();
    this.transcript.appendChild(element);
    this.bubble = { turnId, element, text, tools };
    return this.bubble;
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

  private removeBubble(): void {
    this.bubble?.element.remove();
    this.bubble = undefined;
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
