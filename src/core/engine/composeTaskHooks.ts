/**
 * Several supervisors (today only the chore runner) can watch tasks; the engine takes one
 * TaskHooks. This combines them explicitly instead of keeping the first provider and silently
 * dropping the rest.
 */
import type { TaskHooks } from './taskHooks';

/**
 * Combines hook providers, asked in the order given:
 * - `resolveProactive`: the first provider that returns a task to start wins (a provider returns
 *   undefined for a trigger that is not its own, or that it decided not to start);
 * - `guard`: the first reason to stop stops the task;
 * - `modelCalled`: every provider hears of every call;
 * - `beforeTaskEnd`: the first message that keeps the task running wins (the others are asked
 *   again when the task next tries to end);
 * - `turnWithoutEnd`: the first provider that supervises the task (returns an answer) decides.
 * A member is set only when some provider has it, so the engine sees no hook where none exists.
 * With no provider the result is undefined (the engine runs without hooks); with one, that
 * provider itself.
 */
export function composeTaskHooks(providers: readonly TaskHooks[]): TaskHooks | undefined {
  if (providers.length === 0) return undefined;
  if (providers.length === 1) return providers[0];
  const having = <K extends keyof TaskHooks>(key: K): TaskHooks[] => providers.filter((p) => p[key] !== undefined);
  const hooks: TaskHooks = {};
  const resolvers = having('resolveProactive');
  if (resolvers.length) {
    hooks.resolveProactive = async (trigger) => {
      for (const p of resolvers) {
        const resolved = await p.resolveProactive?.(trigger);
        if (resolved) return resolved;
      }
      return undefined;
    };
  }
  const guards = having('guard');
  if (guards.length) {
    hooks.guard = (task, next) => {
      for (const p of guards) {
        const reason = p.guard?.(task, next);
        if (reason) return reason;
      }
      return undefined;
    };
  }
  const observers = having('modelCalled');
  if (observers.length) {
    hooks.modelCalled = (task, usage, costUsd, costEstimated) => {
      for (const p of observers) p.modelCalled?.(task, usage, costUsd, costEstimated);
    };
  }
  const enders = having('beforeTaskEnd');
  if (enders.length) {
    hooks.beforeTaskEnd = async (task, result, signal, record) => {
      for (const p of enders) {
        const message = await p.beforeTaskEnd?.(task, result, signal, record);
        if (message) return message;
      }
      return undefined;
    };
  }
  const supervisors = having('turnWithoutEnd');
  if (supervisors.length) {
    hooks.turnWithoutEnd = async (task, turn) => {
      for (const p of supervisors) {
        const answer = await p.turnWithoutEnd?.(task, turn);
        if (answer) return answer;
      }
      return undefined;
    };
  }
  return hooks;
}
