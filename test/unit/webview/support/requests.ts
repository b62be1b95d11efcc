import type { WebviewMessage } from '../../../../src/shared/protocol';
import type { SidebarMethod, SidebarParams, SidebarResults } from '../../../../src/shared/sidebarApi';
import { RequestClient } from '../../../../src/webview/requests';

type Envelope = Extract<WebviewMessage, { type: 'request' }>;

/**
 * The host as a webview component sees it: the real request client over a fake post. Requests are
 * recorded; a test answers them (a result, or a refusal in the person's words) and awaits
 * `settled()` for the component to take the answer.
 */
export function fakeHost() {
  const sent: Envelope[] = [];
  const answered = new Set<string>();
  const client = new RequestClient((message) => {
    if (message.type === 'request') sent.push(message);
  });
  /** Whether `params` has every field of `match` (compared as JSON). */
  const fits = (params: unknown, match: object | undefined) =>
    !match || Object.entries(match).every(([key, value]) => JSON.stringify((params as Record<string, unknown>)[key]) === JSON.stringify(value));
  const open = (method: SidebarMethod, match?: object) => {
    const found = sent.find((r) => r.method === method && !answered.has(r.id) && fits(r.params, match));
    if (!found) throw new Error(`no ${method} request waits for an answer (sent: ${sent.map((r) => r.method).join(', ') || 'none'})`);
    answered.add(found.id);
    return found;
  };
  return {
    request: client.request,
    /** What was asked, oldest first, as method and params. */
    calls: (method?: SidebarMethod) => sent.filter((r) => !method || r.method === method).map((r) => ({ method: r.method, params: r.params })),
    /** Answers the oldest unanswered request of `method` (whose params have `match`'s fields) with `result`. */
    answer<K extends SidebarMethod>(method: K, result: SidebarResults[K], match?: Partial<SidebarParams[K]>): void {
      const { id } = open(method, match);
      client.onReply({ type: 'reply', id, method, ok: true, result });
    },
    /** Refuses the oldest unanswered request of `method`, with the host's words. */
    fail<K extends SidebarMethod>(method: K, error: string, match?: Partial<SidebarParams[K]>): void {
      const { id } = open(method, match);
      client.onReply({ type: 'reply', id, method, ok: false, error });
    },
    /** Lets the components take the answers given so far (promise callbacks run). */
    settled: () => new Promise<void>((resolve) => setImmediate(resolve)),
  };
}
