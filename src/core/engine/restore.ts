/**
 * Activation: reconcile the irreversible-action ledger, then make sure every running task has a
 * trigger that will wake it. Resume triggers carry a dedup key (task id + turn count), so a
 * double activation cannot double-resume.
 */
import type { LedgerEntry } from '../actions/ledger';
import type { EngineEnv } from './engineEnv';
import { WAIT_REARM_MS } from './engineEnv';

/** Whether the task's model already learns of this intent from its history or from an approval note. */
async function reportedByHistory(env: EngineEnv, sessionId: string, entry: LedgerEntry): Promise<boolean> {
  if (entry.intent && typeof entry.intent === 'object' && 'approvalId' in (entry.intent as object)) return true;
  const events = await env.state.streams.read(sessionId, { limit: 200 });
  const ended = new Set(events.filter((e) => e.kind === 'action_end').map((e) => e.data.callId));
  const intent = JSON.stringify(entry.intent ?? null);
  return events.some(
    (e) => e.kind === 'action_start' && !ended.has(e.data.callId) && e.data.name === entry.action && JSON.stringify(e.data.input ?? null) === intent,
  );
}

export async function restoreAtStart(env: EngineEnv): Promise<{ resumed: string[]; interrupted: string[] }> {
  const interrupted: string[] = [];
  for (const entry of env.ledger.unresolved()) {
    // Never replay: the action may or may not have happened. Tell the task and the user, once.
    const text = `The action ${entry.action} (input ${JSON.stringify(entry.intent).slice(0, 300)}) may have run before the restart; Tasklane did not repeat it. Check whether it took effect before calling it again.`;
    env.ledger.markInterrupted(entry.id, 'reported after restart');
    interrupted.push(entry.id);
    const task = env.state.tasks.get(entry.taskId);
    const sessionId = task?.sessionId ?? (env.state.sessions.has(entry.taskId) ? entry.taskId : undefined);
    // The model hears of it from one place only: the call's own tool result when the call was in a
    // turn (the history builder reads its open action_start), the approval's note when it was an
    // approved command, else this ledger line.
    const toldElsewhere = task ? await reportedByHistory(env, task.sessionId, entry) : false;
    if (task)
      await env.state.appendEvent(task.sessionId, 'ledger', { text, ledgerId: entry.id, action: entry.action, ...(toldElsewhere ? { forModel: false } : {}) });
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
