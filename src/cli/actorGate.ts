/**
 * Who may fire a chore on CI, checked before any model call, and whether the fire is tainted
 * (judged by who asked: core/chores/githubTaint.ts).
 *
 * Where the check runs (a decision, also in the README): in `chores run`, in the read-only agent
 * job, with a token given to that step as `TASKLANE_GATE_TOKEN` (the workflow's own token with no
 * write scope: metadata is always readable, `checks: read` lets the budget read earlier fires).
 * The alternative, a job `if:` on `author_association`, is coarser (it cannot tell maintain from
 * write and drifts from the collaborator API), and checking only in the apply job would let an
 * outsider spend the model budget and read the run's output. The token never reaches the model or
 * a command: the CLI takes it out of the environment the run sees and redacts it everywhere.
 *
 * Exact roles from the collaborator-permission API, humans only (`sender.type == 'User'`), bots
 * only by exact login, never `*` (the schema refuses it). A refused fire is skipped, not failed.
 */
import type { ActorGate } from '../core/chores/githubTypes';
import type { GithubEvent } from '../core/chores/githubEvent';
import { askerTaint } from '../core/chores/githubTaint';

/** What the gate needs from the REST API (githubApi.ts implements it). */
export interface PermissionSource {
  permission(login: string): Promise<string>;
}

export type GateVerdict =
  { allowed: true; actor: string; role: string; tainted: boolean; taintReasons: string[] } | { allowed: false; actor: string; reason: string };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/**
 * Checks the event's sender (who asked) against the gate; a sender outside `actors.trustedRoles`
 * taints the fire (commands, network and high-risk outputs off). Other authors' text is data.
 */
export async function checkActorGate(gate: ActorGate, event: GithubEvent, api: PermissionSource | undefined): Promise<GateVerdict> {
  const sender = obj(event.payload.sender);
  const login = typeof sender.login === 'string' ? sender.login : undefined;
  // A scheduled run has no sender: nobody's text reaches the model and nobody can be refused.
  if (!login)
    return event.name === 'schedule'
      ? { allowed: true, actor: 'schedule', role: 'schedule', tainted: false, taintReasons: [] }
      : refuse('unknown', 'the event names no sender');
  const inside = async (who: string, type?: unknown): Promise<{ ok: boolean; role: string }> => {
    if (type === 'Bot' || who.endsWith('[bot]')) return { ok: gate.bots.includes(who), role: 'bot' };
    if (!api) return { ok: false, role: 'unknown (no token to ask GitHub)' };
    const role = await api.permission(who);
    return { ok: (gate.roles as readonly string[]).includes(role), role };
  };
  if (sender.type !== 'User' && sender.type !== 'Bot')
    return refuse(login, `the sender ${login} is a ${String(sender.type ?? 'unknown account type')}; only people and listed bots fire chores`);
  const own = await inside(login, sender.type);
  if (!own.ok) {
    if (sender.type === 'Bot' || login.endsWith('[bot]')) return refuse(login, `the bot ${login} is not in actors.bots`);
    if (!api) return refuse(login, `${login}'s role could not be checked: TASKLANE_GATE_TOKEN is not set`);
    return refuse(login, `${login} has the role ${own.role}; this chore needs one of ${gate.roles.join(', ')}`);
  }
  const taintReasons = askerTaint(gate, { login, role: own.role, bot: own.role === 'bot' });
  return { allowed: true, actor: login, role: own.role, tainted: taintReasons.length > 0, taintReasons };
}

function refuse(actor: string, reason: string): GateVerdict {
  return { allowed: false, actor, reason: `actor gate: ${reason}` };
}
