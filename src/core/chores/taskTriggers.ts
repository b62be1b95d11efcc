import { compileExpression, evaluateTaskCondition } from './expressions';
import type { CompiledExpression } from './expressions';
import type { ChoreDefinition } from './types';

/** What `vscode.tasks.onDidEndTaskProcess` tells the host, reduced to what chores match on. */
export interface TaskEndEvent {
  name: string;
  /** Undefined when the task was terminated without an exit code. */
  exitCode: number | undefined;
}

/**
 * Finds the task chores a finished VS Code task fires. Conditions are compiled once per
 * configuration, not per event.
 */
export class TaskTriggerMatcher {
  private entries: Array<{ choreId: string; name: string; when?: CompiledExpression }> = [];

  /** Takes the loaded chores; chores with other triggers are ignored. */
  configure(chores: readonly ChoreDefinition[]): void {
    this.entries = [];
    for (const chore of chores) {
      if (chore.trigger.kind !== 'task') continue;
      // The loader already compiled `when`, so this cannot throw for a chore that loaded.
      this.entries.push({ choreId: chore.id, name: chore.trigger.name, ...(chore.trigger.when ? { when: compileExpression(chore.trigger.when) } : {}) });
    }
  }

  /** Ids of the chores to fire, in chores.yaml order. */
  async match(event: TaskEndEvent): Promise<string[]> {
    const fired: string[] = [];
    for (const entry of this.entries) {
      if (entry.name !== event.name) continue;
      if (await evaluateTaskCondition(entry.when, event)) fired.push(entry.choreId);
    }
    return fired;
  }
}
