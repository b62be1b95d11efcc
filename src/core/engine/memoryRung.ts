/**
 * The memory rung: runs one distillation (src/core/memory/distiller.ts) and reports its token
 * spend where the user sees usage: on the "Memory" session, one line per distillation, with the
 * same totals as a task's usage.
 */
import * as path from 'node:path';
import { runDistillation } from '../memory/distiller';
import type { DistillOutcome } from '../memory/distiller';
import type { EngineEnv } from './engineEnv';
import { addTotals } from './records';

/** The session memory distillations are accounted to. */
export const MEMORY_SESSION_ID = 'memory';

export async function runMemoryRung(env: EngineEnv): Promise<DistillOutcome> {
  return runDistillation({
    db: env.state.db,
    triggers: env.triggers,
    model: env.model,
    memoryFile: env.memoryFile,
    eventsFile: path.join(env.storageDir, 'EVENT.md'),
    clock: env.clock,
    logger: env.logger,
    settings: () => env.settings().memory,
    signal: env.signal,
    onUsage: async (response, events) => {
      const session = env.state.sessions.get(MEMORY_SESSION_ID) ?? env.state.createSession({ id: MEMORY_SESSION_ID, name: 'Memory (MEMORY.md distillation)' });
      const cost = env.costOf(response.model, response.usage, response.costUsd);
      session.usage = addTotals(session.usage, response.usage, cost.usd, cost.estimated);
      session.lastActivity = env.clock.now();
      env.state.saveSession(session);
      await env.state.appendMessage(
        MEMORY_SESSION_ID,
        'event',
        `Distilled ${events} events into MEMORY.md: ${response.usage.inputTokens} input / ${response.usage.outputTokens} output tokens.`,
      );
      await env.state.commit();
    },
  });
}
