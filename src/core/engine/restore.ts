/**
 * Activation: reconcile the irreversible-action ledger, then make sure every running task has a
 * trigger that will wake it. Resume triggers carry a dedup key (task id + turn count), so a
 * double activation cannot double-resume.
 */
import type { EngineEnv } from './engineEnv';
import { WAIT_REARM_MS } from './engineEnv';

export async function restoreAtStart(env: EngineEnv): Promise<{ resumed: string[]; interrupted: string[] }> {
  const interrupted: string[] = [];
  for (const entry of env.ledger.unresolved()) {
    // Never replay: the action may or may not have happened. Tell the task and the user.
    const text = `The action ${entry.action} (input ${JSON.stringify(entry.intent).slice(0, 300)}) was interrupted by a restart and was NOT run again; it may or may not have taken effect. Check its result before retrying it.`;
    env.ledger.markInterrupted(entry.id, 'reported after restart');
    interrupted.push(entry.id);
    const task = env.state.tasks.get(entry.taskId);
    const sessionId = task?.sessionId ?? (env.state.sessions.has(entry.taskId) ? entry.taskId : undefined);
    if (task) await env.state.appendEvent(task.sessionId, 'ledger', { text, ledgerId: entry.id, action: entry.action });
    if (sessionId) await env.state.appendMessage(sessionId, 'error', text);
    env.logger.warn('ACTION', `ledger ${entry.id}: ${entry.action} interrupted by a restart; reported, not replayed`);
  }
  const resumed: string[] = [];
  for (const task of env.state.activeTasks()) {
    if (task.paused || task.status !== 'running') continue;
    if (env.triggers.pending(task.sessionId).length) continue; // The store re-delivers it.
    const waiting = task.waitingForUser || Boolean(task.waitingForApproval);
    await env.triggers.emit({
      source: 'resume',
      sessionId: task.sessionId,
      dedupKey: `resume:${task.id}:${task.turns}`,
      ...(waiting ? { fireAt: env.clock.now() + WAIT_REARM_MS, payload: { wait: 'reply' } } : {}),
    });
    resumed.push(task.id);
    env.logger.info('TASK', `restored ${task.id} (${waiting ? 'waiting for the user' : 'resuming'})`);
  }
  await env.state.commit();
  return { resumed, interrupted };
}
