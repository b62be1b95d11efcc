/**
 * Live turns: what the sidebar sees while a model call streams, and how Stop ends it.
 *
 * A turn's model deltas are turned into `stream` changes for one live bubble per session: the
 * model's free text and the text of its user-facing tool calls (`send_message`, `ask_user`)
 * appended as they form, and a one-line preview of any other tool call. Nothing of this is
 * durable: the committed transcript only ever gets the final message (a crash mid-stream loses
 * the unfinished part of that one turn, whose trigger is re-run). A stopped reply is the one
 * exception, by design: what the person saw is committed, marked `stopped`.
 */
import type { ModelDelta } from '../model/types';
import type { StreamDelta } from './types';

/** Tools whose argument is the text the person reads: streamed into the bubble as it forms. */
const MESSAGE_FIELDS: Record<string, string> = { send_message: 'text', ask_user: 'question' };
/** Characters of a tool call's arguments shown as its progress line. */
const PREVIEW_CHARS = 160;
/**
 * The first delta of a turn goes out at once (first-token latency); later ones are coalesced
 * for this long, so a fast model costs ~30 view updates a second, not one per token.
 */
export const STREAM_INTERVAL_MS = 33;
/** Between two parts of one bubble (free text, then a message call). */
const PART_SEPARATOR = '\n\n';

interface CallState {
  name: string;
  argumentsText: string;
  /** Characters of the decoded message field already published. */
  shown: number;
  /** Preview last published (other tools); undefined until the call was first shown. */
  preview?: string;
}

/**
 * Folds one turn's model deltas into throttled `StreamDelta`s and remembers what was shown, so
 * a Stop can commit exactly that. One per turn (a repair call continues the same bubble).
 */
export class TurnStream {
  private pendingText = '';
  private readonly calls = new Map<string, CallState>();
  private readonly dirtyCalls = new Set<string>();
  private shownText = '';
  /** The part the bubble's text last came from: 'text' or a call id. */
  private lastPart: string | undefined;
  private lastFlush = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly emit: (delta: StreamDelta) => void,
    private readonly intervalMs = STREAM_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The ModelRequest.onDelta of this turn's model calls. */
  readonly onDelta = (delta: ModelDelta): void => {
    if (this.closed) return;
    if (delta.kind === 'text') {
      this.pendingText += delta.text;
    } else {
      const call = this.calls.get(delta.callId) ?? { name: delta.name, argumentsText: '', shown: 0 };
      call.name = delta.name || call.name;
      call.argumentsText = delta.argumentsText;
      this.calls.set(delta.callId, call);
      this.dirtyCalls.add(delta.callId);
    }
    const wait = this.lastFlush + this.intervalMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  };

  /** Everything the bubble has shown or is about to show: what a stopped reply keeps. */
  visibleText(): string {
    this.flush();
    return this.shownText;
  }

  /** Publishes what is pending now (also called at the end of each model call). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    this.lastFlush = this.now();
    if (this.pendingText) {
      this.appendText('text', this.pendingText);
      this.pendingText = '';
    }
    for (const callId of this.dirtyCalls) {
      const call = this.calls.get(callId)!;
      const field = MESSAGE_FIELDS[call.name];
      if (field) {
        const decoded = partialStringField(call.argumentsText, field);
        if (decoded.length > call.shown) {
          this.appendText(callId, decoded.slice(call.shown));
          call.shown = decoded.length;
        }
      } else {
        const preview = call.argumentsText.slice(0, PREVIEW_CHARS);
        if (preview !== call.preview) {
          call.preview = preview;
          this.emit({ kind: 'tool', callId, name: call.name, preview });
        }
      }
    }
    this.dirtyCalls.clear();
  }

  /** Flushes and stops publishing (the turn ended). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private appendText(part: string, text: string): void {
    const joined = this.lastPart !== undefined && this.lastPart !== part && this.shownText ? PART_SEPARATOR + text : text;
    this.lastPart = part;
    this.shownText += joined;
    this.emit({ kind: 'text', text: joined });
  }
}

/**
 * The value of the string field `field` of a JSON object that may be cut anywhere, decoded as
 * far as it goes ('' until the field's string starts). An escape cut in the middle waits for the
 * rest, so the result only ever grows as the text does.
 */
export function partialStringField(json: string, field: string): string {
  const key = new RegExp(`"${field}"\\s*:\\s*"`).exec(json);
  if (!key) return '';
  let out = '';
  for (let i = key.index + key[0].length; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') break;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = json[i + 1];
    if (next === undefined) break;
    if (next === 'u') {
      const hex = json.slice(i + 2, i + 6);
      if (hex.length < 4) break;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 5;
      continue;
    }
    out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[next] ?? next;
    i += 1;
  }
  return out;
}
