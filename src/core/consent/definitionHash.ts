/**
 * The definition hash a consent is bound to. It is computed over the NORMALISED definition (what
 * the engine will actually do), not over the file's text: comments, key order, quoting, flow vs
 * block style and spelling out a default do not change it, while any change to what runs does.
 */
import { createHash } from 'node:crypto';
import type { ChoreDefinition } from '../chores/types';

/** sha256 of a canonical JSON form (object keys sorted at every depth). */
export function definitionHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The bodies of the skills a chore names, as the agent would inject them (null: no such skill). */
export type ChoreSkillBodies = Readonly<Record<string, string | null>>;

/**
 * The key under which the workspace's AGENTS.md travels with the skill bodies. It reaches every
 * chore's prompt first ("Workspace rules"), so it is part of what a consent covers (review 2026-12c
 * finding 12): a pull that rewrites it asks for Enable again, in VS Code and for `--expect-hash`.
 * No skill can have this name (skill names have no dot or capitals).
 */
export const WORKSPACE_RULES_KEY = 'AGENTS.md';

/**
 * The bodies of `chore`'s skills out of the skills the agent knows (null for an unknown name), and
 * the workspace rules (AGENTS.md) the prompt starts with, when there are any.
 */
export function choreSkillBodies(
  chore: Pick<ChoreDefinition, 'skills'>,
  known: ReadonlyArray<{ name: string; body: string }>,
  workspaceRules?: string,
): ChoreSkillBodies {
  const byName = new Map(known.map((s) => [s.name, s.body]));
  const bodies: Record<string, string | null> = Object.fromEntries([...new Set(chore.skills)].sort().map((name) => [name, byName.get(name) ?? null]));
  if (workspaceRules !== undefined) bodies[WORKSPACE_RULES_KEY] = workspaceRules;
  return bodies;
}

/**
 * The hash of everything of a chore that decides what runs or reaches the model: its name (the
 * task is named after it and the model reads it as the task's heading), trigger, prompt, action
 * sets, skills and the bodies of those skills (a SKILL.md edited in a pull asks again), the
 * workspace's AGENTS.md (`WORKSPACE_RULES_KEY`), its MCP
 * servers and tools with the review of each (core/consent/choreConsentHash.ts), budget,
 * success condition, failure, retry, concurrency and drift policies, and escalation targets.
 */
export function choreDefinitionHash(
  chore: ChoreDefinition,
  skillBodies: ChoreSkillBodies = {},
  /** The review hash of each server its `mcp:` declares (`null`: nobody defines it): `choreMcpFacts`. */
  mcpServers: Readonly<Record<string, string | null>> = {},
): string {
  // `enabled: false` only stops a chore; switching it back on restores the consented behaviour.
  const { enabled: _enabled, ...behaviour } = chore;
  const bodies = Object.fromEntries([...new Set(chore.skills)].sort().map((name) => [name, skillBodies[name] ?? null]));
  // Sets, not lists: their order means nothing, so reordering them does not ask again.
  return definitionHash({
    kind: 'chore',
    ...behaviour,
    actionSets: [...new Set(chore.actionSets)].sort(),
    skills: [...new Set(chore.skills)].sort(),
    skillBodies: bodies,
    // Only where the workspace has AGENTS.md, so the hashes of chores in other workspaces stay.
    ...(typeof skillBodies[WORKSPACE_RULES_KEY] === 'string' ? { workspaceRules: skillBodies[WORKSPACE_RULES_KEY] } : {}),
    // Only for a chore that declares servers, so the hashes of all others are unchanged: an edit
    // of such a server in mcp.json, or of a workspace file a server runs, withdraws the chore's
    // consent like an edit of the chore.
    ...(chore.mcp ? { mcpServers: Object.fromEntries(Object.keys(chore.mcp).map((name) => [name, mcpServers[name] ?? null])) } : {}),
  });
}
