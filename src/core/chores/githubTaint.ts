/**
 * Whether a GitHub fire is tainted, judged by who asked (issue 38; review ci-2026-12c §5 #2).
 *
 * The person who asked for the fire (the event's sender: the author of the `/tasklane` comment,
 * the person who applied the label, opened the item or started the workflow) decides what the
 * fire may do. Other people's text that reaches the model (the issue an outsider filed, earlier
 * comments) is data: it is always given in delimited, sanitised blocks (eventText.ts) and never
 * decides anything. So a maintainer's `/tasklane fix` on an outsider's issue is a full run, and an
 * outsider who may fire a chore (`read` in `actors.roles`, to triage their issues) gets a tainted
 * run: no commands, no network, only labels and a comment.
 *
 * Two lists: `actors.roles` may fire, `actors.trustedRoles` (default admin, maintain, write) are
 * trusted when they ask. A bot listed in `actors.bots` is trusted as it was listed (a decision:
 * bots are named one by one by the maintainers who add them).
 *
 * The CLI asks GitHub for the asker's role (cli/actorGate.ts); a replay in VS Code has no token
 * and reads the role from the payload's `author_association` ({@link replayAsker}), with the same
 * rule applied to it.
 */
import type { GithubEvent } from './githubEvent';
import { DEFAULT_TRUSTED_ROLES } from './githubTypes';
import type { ActorGate } from './githubTypes';

/** Who asked for a fire: their login, their repository role (or why it is unknown), and whether they are a bot. */
export interface Asker {
  login: string;
  role: string;
  bot: boolean;
}

/** Why the fire is tainted (empty: it is not), by the asker's role against `actors.trustedRoles`. */
export function askerTaint(gate: ActorGate, asker: Asker): string[] {
  if (asker.bot) return [];
  const trusted: readonly string[] = gate.trustedRoles ?? DEFAULT_TRUSTED_ROLES;
  if (trusted.includes(asker.role)) return [];
  return [`${asker.login} asked for this fire with the role ${asker.role}, outside actors.trustedRoles (${trusted.join(', ')})`];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** author_association → the role it implies at least (OWNER: admin; MEMBER, COLLABORATOR: write). */
const ASSOCIATION_ROLE: Record<string, string> = { OWNER: 'admin', MEMBER: 'write', COLLABORATOR: 'write' };

/**
 * The asker of a recorded event as a replay can tell: the sender, with the role implied by the
 * `author_association` GitHub wrote on the sender's own text (the comment, review, issue or pull
 * request they wrote). Where the payload has none (a label, a workflow run), the role is unknown
 * and the replay is tainted, as CI would be for a role outside the trusted list.
 */
export function replayAsker(event: GithubEvent): Asker {
  const p = event.payload;
  const sender = obj(p.sender);
  const login = typeof sender.login === 'string' ? sender.login : 'unknown';
  const bot = sender.type === 'Bot' || login.endsWith('[bot]');
  const own = [obj(p.comment), obj(p.review), obj(p.issue), obj(p.pull_request)].find((o) => obj(o.user).login === login && o.author_association);
  const association = typeof own?.author_association === 'string' ? own.author_association : undefined;
  return { login, role: association ? (ASSOCIATION_ROLE[association] ?? 'read') : 'unknown', bot };
}
