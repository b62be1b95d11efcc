/**
 * The one action registry. JSON Schemas are exported from zod once per action, the first time a
 * tool list needs it (not at registration: exporting every schema cost tens of ms of activation,
 * before any model turn needs a tool), and the tool list for a set of action sets is cached, so every request of a task
 * carries byte-identical tool definitions (a stable prompt prefix).
 */
import * as z from 'zod/v4';
import type { ToolSpec } from '../model/types';
import type { ActionDef } from './types';

/** Drops what costs tokens and tells the model nothing. */
function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '$schema' || key === 'propertyNames') continue;
    if ((key === 'maximum' || key === 'minimum') && Math.abs(Number(value)) >= Number.MAX_SAFE_INTEGER) continue;
    out[key] = compactSchema(value);
  }
  return out;
}

/**
 * What the model is offered: `inputJsonSchema` as given, less its top-level `$schema` (tokens the
 * model does not need; nested keys are the author's and stay), else `input` exported and compacted.
 */
function inputSchemaOf(action: ActionDef): Record<string, unknown> {
  if (!action.inputJsonSchema) return compactSchema(z.toJSONSchema(action.input)) as Record<string, unknown>;
  const { $schema: _dialect, ...schema } = action.inputJsonSchema;
  return schema;
}

export class ActionRegistry {
  private readonly actions = new Map<string, ActionDef>();
  private readonly specs = new Map<string, ToolSpec>();
  private readonly toolCache = new Map<string, ToolSpec[]>();

  constructor(actions: ActionDef[] = []) {
    for (const action of actions) this.register(action);
  }

  register(action: ActionDef): void {
    if (!/^[a-z][a-z0-9_]*$/.test(action.name)) throw new Error(`Action name '${action.name}' must be snake_case.`);
    if (this.actions.has(action.name)) throw new Error(`Action '${action.name}' is already registered; give the new one another name.`);
    this.actions.set(action.name, action);
    this.toolCache.clear();
  }

  /** The action's tool definition, exported once and then reused (the same object every time). */
  private spec(action: ActionDef): ToolSpec {
    let spec = this.specs.get(action.name);
    if (!spec) {
      spec = { name: action.name, description: action.description, inputSchema: inputSchemaOf(action) };
      this.specs.set(action.name, spec);
    }
    return spec;
  }

  /** Tools offered for these sets, in registration order (stable while availability holds). */
  tools(actionSets: readonly string[]): ToolSpec[] {
    const offered = [...this.actions.values()].filter((a) => a.actionSets.some((s) => actionSets.includes(s)) && (a.available?.() ?? true));
    // Cached per combination, so every request with the same tools carries the same array.
    const key = offered.map((a) => a.name).join(',');
    let tools = this.toolCache.get(key);
    if (!tools) {
      tools = offered.map((a) => this.spec(a));
      this.toolCache.set(key, tools);
    }
    return tools;
  }

  /** Resolves a tool call's name within the task's sets, or explains what is allowed. */
  resolve(name: string, actionSets: readonly string[]): ActionDef {
    const action = this.actions.get(name);
    const allowed = () =>
      this.tools(actionSets)
        .map((t) => t.name)
        .join(', ');
    if (!action) throw new Error(`There is no action '${name}' here. Call one of: ${allowed()}.`);
    if (!action.actionSets.some((s) => actionSets.includes(s))) {
      // The gate (actionSets.ts): an action outside the turn's sets is not run, whatever the model sends.
      const needs = action.actionSets.map((s) => `"${s}"`).join(' or ');
      throw new Error(
        `${name} is not available here: it needs the action set ${needs}, which this work was not given (it has: ${actionSets.join(', ')}). Nothing was run. Do without it, or tell the user what you would need. Call one of: ${allowed()}.`,
      );
    }
    return action;
  }

  get(name: string): ActionDef | undefined {
    return this.actions.get(name);
  }
}
