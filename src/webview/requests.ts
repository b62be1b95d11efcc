/**
 * The webview's side of the request API (src/shared/sidebarApi.ts): `request(method, params)`
 * posts one envelope and resolves with that request's typed result, or rejects with the host's
 * words for what went wrong. Replies are matched on the envelope's id, in one place; no component
 * pairs a reply with its question by a key of its own.
 */
import type { WebviewMessage } from '../shared/protocol';
import type { SidebarMethod, SidebarParams, SidebarReply, SidebarResults } from '../shared/sidebarApi';
import { isResultOf } from '../shared/sidebarApi';
import { word } from './words';

/** Asks the host; resolves with the method's result. */
export type Request = <K extends SidebarMethod>(method: K, params: SidebarParams[K]) => Promise<SidebarResults[K]>;

/** A request the host refused or could not carry out: `message` is written for the person. */
export class RequestError extends Error {
  override readonly name = 'RequestError';
}

/** The person's words for a failed request (a RequestError's message; else a generic sentence). */
export function failureText(error: unknown): string {
  return error instanceof RequestError ? error.message : word('requestFailed');
}

export class RequestClient {
  /** What settles each request in flight, by envelope id. */
  private readonly waiting = new Map<string, (reply: SidebarReply) => void>();
  private sequence = 0;
  /** Ids are unique across reloads of the page too: a reply to an older page's request settles nothing here. */
  private readonly prefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

  constructor(private readonly post: (message: WebviewMessage) => void) {}

  readonly request: Request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = `${this.prefix}-${++this.sequence}`;
      this.waiting.set(id, (reply) => {
        if (!reply.ok) reject(new RequestError(reply.error));
        else if (isResultOf(reply, method)) resolve(reply.result);
        else reject(new RequestError(word('requestMismatch', method, reply.method)));
      });
      this.post({ type: 'request', id, method, params });
    });

  /** Settles the request `reply` answers; false when it answers none of this page's. */
  onReply(reply: SidebarReply): boolean {
    const settle = this.waiting.get(reply.id);
    if (!settle) return false;
    this.waiting.delete(reply.id);
    settle(reply);
    return true;
  }

  /** How many requests wait for their reply. */
  get inFlight(): number {
    return this.waiting.size;
  }
}
