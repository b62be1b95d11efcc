/**
 * Live turns: what the sidebar sees while a model call streams, and how Stop ends it.
 *
 * A turn's model deltas are turned into `stream` changes for one live bubble per session: the
 * model's free text and the text of its user-facing tool calls (`send_message`, `ask_user`)
 * appended as they form, and a one-line preview of any other tool call. Nothing of this is
 * durable: the committed transcript only ever gets the final message (a crash mid-stream loses
 * the unfinished part of that one turn, whose trigger is re-run). A stopped reply is the one
 * exception, by design: what the person saw is committed, marked `stopped`.
 *
 * What streams is redacted like what is stored (security/redact.ts): the bubble's text is
 * redacted as a whole and only its settled part is shown, so a key cut across two deltas is
 * never on screen half-way. The last word is held back until whitespace follows it (it may be
 * the first half of a token), and an unclosed `-----BEGIN` block until its end arrives; the end
 * of each model call releases the rest.
 */
import type { ModelDelta } from '../model/types';
import { redactCredentials } from '../security/redact';
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
/**
 * The end of text that may still grow into a secret: its last word, or (in JSON) its last token,
 * JSON escapes included (a token cut at `\` or `\u00` is a secret whose escape is still coming).
 */
const WORD_TAIL = /\S*$/;
const TOKEN_TAIL = /[\w\-+/=.~\\]*$/;
/**
 * Characters behind the settled end that are redacted again at each publish: a secret that is
 * still forming, or a `password = …` whose name came earlier, lies within them. What lies further
 * back is frozen (shown, never redacted again), so a publish costs this window, not the whole
 * reply: an endless reply costs linear time, not quadratic.
 */
export const REDACT_WINDOW = 2048;
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
  /**
   * The bubble's text as the model wrote it, from the frozen point on (`frozenRaw` characters
   * before it are done with and not kept); only its redacted, settled part is shown. Keeping only
   * this part keeps each publish's cost to the window: slicing a string built by appends flattens
   * all of it, and a 400 KB reply copied at every publish cost the extension host seconds.
   */
  private openRaw = '';
  /** How much of the raw text (frozen part included) the shown text covers. */
  private settled = 0;
  /** Raw characters before the open part: redacted into `frozenText` and never looked at again. */
  private frozenRaw = 0;
  /** The shown (redacted) text of the frozen raw text. */
  private frozenText = '';
  /** The shown text after the frozen part. */
  private tailText = '';
  /** Set if redaction ever rewrote text already shown (a secret spanning whitespace): the bubble stops growing until the committed message replaces it. */
  private diverged = false;
  /** The part the bubble's text last came from: 'text' or a call id. */
  private lastPart: string | undefined;
  private lastFlush = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly redact: (text: string) => string;

  constructor(
    private readonly emit: (delta: StreamDelta) => void,
    options: { intervalMs?: number; now?: () => number; redact?: (text: string) => string } = {},
  ) {
    this.intervalMs = options.intervalMs ?? STREAM_INTERVAL_MS;
    this.now = options.now ?? (() => performance.now());
    this.redact = options.redact ?? redactCredentials;
  }

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
    // Until the bubble shows its first word, every delta is published at once (first-token latency).
    const wait = this.frozenText || this.tailText ? this.lastFlush + this.intervalMs - this.now() : 0;
    if (wait <= 0) this.publish(false);
    else this.timer ??= setTimeout(() => this.publish(false), wait);
  };

  /** What the bubble has shown (redacted): what a stopped reply keeps. */
  visibleText(): string {
    this.publish(false);
    return this.frozenText + this.tailText;
  }

  /** Publishes everything pending, held-back words included (the end of each model call). */
  flush(): void {
    this.publish(true);
  }

  private publish(final: boolean): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    this.lastFlush = this.now();
    if (this.pendingText) {
      this.appendRaw('text', this.pendingText);
      this.pendingText = '';
    }
    for (const callId of this.dirtyCalls) {
      const call = this.calls.get(callId)!;
      const field = MESSAGE_FIELDS[call.name];
      if (field) {
        const decoded = partialStringField(call.argumentsText, field);
        if (decoded.length > call.shown) {
          this.appendRaw(callId, decoded.slice(call.shown));
          call.shown = decoded.length;
        }
      } else {
        // Arguments have few spaces: hold back only the token still being written. Only the start
        // is shown, so only the start (and a window for a secret that begins in it) is redacted;
        // the redactor reads JSON escapes (`\/`, `\u002d`) as the characters they stand for.
        const head = call.argumentsText.slice(0, PREVIEW_CHARS + REDACT_WINDOW);
        const args = final ? head : head.slice(0, settledEnd(head, TOKEN_TAIL));
        const preview = this.redact(args).slice(0, PREVIEW_CHARS);
        if (preview && preview !== call.preview) {
          call.preview = preview;
          this.emit({ kind: 'tool', callId, name: call.name, preview });
        }
      }
    }
    this.dirtyCalls.clear();
    this.showSettled(final);
  }

  /** Flushes and stops publishing (the turn ended). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private appendRaw(part: string, text: string): void {
    const started = this.frozenRaw > 0 || this.openRaw !== '';
    this.openRaw += this.lastPart !== undefined && this.lastPart !== part && started ? PART_SEPARATOR + text : text;
    this.lastPart = part;
  }

  /**
   * Shows the redacted text up to where nothing can still turn out to be part of a secret. Only
   * the text after the frozen point is redacted (at most the window plus what arrived since).
   */
  private showSettled(final: boolean): void {
    const openEnd = final ? this.openRaw.length : settledEnd(this.openRaw);
    const end = this.frozenRaw + openEnd;
    if (end <= this.settled || this.diverged) return;
    const window = this.openRaw.slice(0, openEnd);
    const redacted = this.redact(window);
    this.settled = end;
    if (!redacted.startsWith(this.tailText)) {
      this.diverged = true;
      return;
    }
    const added = redacted.slice(this.tailText.length);
    this.tailText = redacted;
    if (added) this.emit({ kind: 'text', text: added });
    this.freeze(window, redacted);
  }

  /**
   * Moves the frozen point forward to a whitespace at least REDACT_WINDOW behind the settled end,
   * where redacting the two sides apart gives what redacting them together gave (no secret spans
   * the cut). The window stays bounded, so each publish costs the same however long the reply.
   */
  private freeze(window: string, redacted: string): void {
    if (window.length < 2 * REDACT_WINDOW) return;
    // A whitespace if there is one near; else anywhere (the check below refuses a cut inside a secret).
    let cut = window.length - REDACT_WINDOW;
    for (let i = cut; i > cut - REDACT_WINDOW && i > 0; i--) {
      if (/\s/.test(window[i]!)) {
        cut = i;
        break;
      }
    }
    const before = this.redact(window.slice(0, cut));
    if (!redacted.startsWith(before) || this.redact(window.slice(cut)) !== redacted.slice(before.length)) return;
    this.frozenRaw += cut;
    this.openRaw = this.openRaw.slice(cut);
    this.frozenText += before;
    this.tailText = redacted.slice(before.length);
  }
}

/**
 * Where the settled part of streamed text ends: before its unfinished tail (by default its last
 * word: no whitespace after it yet), and before a private-key block that has not ended.
 */
export function settledEnd(text: string, tail: RegExp = WORD_TAIL): number {
  let end = text.length - (tail.exec(text)?.[0].length ?? 0);
  const begin = text.lastIndexOf('-----BEGIN');
  if (begin >= 0 && begin < end && !text.includes('-----END', begin)) end = begin;
  return end;
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
