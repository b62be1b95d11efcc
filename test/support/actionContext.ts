import type { ActionContext } from '../../src/core/actions/types';
import { TurnEffectsRecorder } from '../../src/core/engine/turnEffects';
import { silentLogger } from '../../src/core/ports';
import { MemoryWorkspace } from '../fakes/memoryWorkspace';

/** An action's context for task `taskId` with its own turn recorder (the edit actions' tests). */
export function turnContext(now: () => number, taskId = 't-1'): ActionContext & { turn: TurnEffectsRecorder } {
  return {
    sessionId: taskId,
    taskId,
    taskMode: 'simple',
    workspace: new MemoryWorkspace(),
    turn: new TurnEffectsRecorder(now),
    now,
    logger: silentLogger,
    remember: async () => undefined,
    skillNames: [],
  };
}
