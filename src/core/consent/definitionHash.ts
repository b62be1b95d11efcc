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

/**
 * The hash of what a chore does: its trigger, prompt, action sets, skills, budget, success
 * condition, failure, retry, concurrency and drift policies, and escalation targets. Only `name`
 * (a label) is left out: renaming a chore changes nothing it does, so it does not ask again.
 */
export function choreDefinitionHash(chore: ChoreDefinition): string {
  // `enabled: false` only stops a chore; switching it back on restores the consented behaviour.
  const { name: _label, enabled: _enabled, ...behaviour } = chore;
  // Sets, not lists: their order means nothing, so reordering them does not ask again.
  return definitionHash({ kind: 'chore', ...behaviour, actionSets: [...new Set(chore.actionSets)].sort(), skills: [...new Set(chore.skills)].sort() });
}
