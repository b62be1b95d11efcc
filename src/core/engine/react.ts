/**
 * react(trigger): the routing ladder of docs/DESIGN.md §2, first match wins. `chooseRung` is pure so
 * each rung is testable on its own; `react` runs the chosen rung.
 */
import { ModelStoppedError } from '../model/errors';
import { ModelError } from '../model/types';
import type { Trigger } from '../store/types';
import { routeIncoming, runConversationTurn } from './conversation';
import { runMemoryRung } from './memoryRung';
import type { EngineEnv } from './engineEnv';
import { WAIT_REARM_MS } from './engineEnv';
import type { EngineState } from './engineState';
import { commitStopped, runLiveTurn } from './liveTurn';
import { TaskStopped } from './taskHooks';
import { createTask, endTask, pauseTask } from './taskLifecycle';
import { handleTaskModelError, runTaskTurn } from './taskTurn';
import type { TaskMode } from './types';

export type Rung = 'restart_notice' | 'memory' | 'proactive' | 'rearm_wait' | 'complex_task' | 'simple_task' | 'conversation' | 'stale';

const PROACTIVE_SOURCES = new Set(['scheduled', 'scheduled_once', 'scheduled_immediate', 'proactive', 'file_event', 'task_event']);

/**
 * Payload of a proactive trigger (chores, file and task events): it starts a task in a session
 * of its own. `origin` fields come back on the task (TaskView.source is `chore:<choreId>`).
 */
export interface ProactivePayload {
  prompt: string;
  name?: string;
  mode?: TaskMode;
  actionSets?: string[];
  skills?: string[];
  choreId?: string;
  runId?: string;
}

/** Payload of an approval trigger (edits, commands): wakes the task waiting for it. */
export interface ApprovalPayload {
  approvalId: string;
  decision: 'approved' | 'rejected';
  note?: string;
}

function payloadOf(trigger: Trigger): Record<string, unknown> {
  return trigger.payload && typeof trigger.payload === 'object' ? (trigger.payload as Record<string, unknown>) : {};
}

/** Whether the trigger brings something for a waiting task (a message or a decision). */
function carriesMessage(trigger: Trigger): boolean {
  const p = payloadOf(trigger);
  return typeof p.text === 'string' || trigger.source === 'approval';
}

export function chooseRung(trigger: Trigger, state: EngineState): Rung {
  if (trigger.source === 'restart_notice') return 'restart_notice';
  if (trigger.source === 'memory') return 'memory';
  if (PROACTIVE_SOURCES.has(trigger.source)) return 'proactive';
  const session = state.sessions.get(trigger.sessionId);
  const task = state.taskOf(trigger.sessionId);
  if (task) {
    if (task.paused) return 'stale';
    if ((task.waitingForUser || task.waitingForApproval) && !carriesMessage(trigger)) return 'rearm_wait';
    return task.mode === 'complex' ? 'complex_task' : 'simple_task';
  }
  if (trigger.source === 'user_message' && session) return 'conversation';
  return 'stale';
}

/** A task id derived from the trigger, so a retried proactive trigger cannot start a second task. */
export function proactiveTaskId(trigger: Trigger): string {
  return `t-${trigger.id.replace(/[^A-Za-z0-9_.-]/g, '')}`;
}

export async function react(env: EngineEnv, trigger: Trigger): Promise<Rung> {
  const rung = chooseRung(trigger, env.state);
  env.logger.info('REACT', `${trigger.source} ${trigger.id} session=${trigger.sessionId} → ${rung}`);
  const payload = payloadOf(trigger);
  switch (rung) {
    case 'restart_notice': {
      // The store emits one notice per restart (session 'system'); every lane with a live task hears it.
      const sessions = env.state.sessions.has(trigger.sessionId) ? [trigger.sessionId] : env.state.activeTasks().map((t) => t.sessionId);
      for (const sessionId of sessions) {
        await env.state.appendMessage(sessionId, 'event', 'I was restarted; picking up where I left off.');
        if (env.state.taskOf(sessionId)) await env.state.appendEvent(sessionId, 'restart', { text: 'The extension restarted. Check the state of anything you were in the middle of before going on.' });
      }
      break;
    }
    case 'memory': {
      // Never throws for a model outage: a memory trigger must not become a dead letter.
      await runMemoryRung(env);
      break;
    }
    case 'proactive': {
      const id = proactiveTaskId(trigger);
      if (env.state.tasks.has(id) || env.state.sessions.has(id)) break;
      // A chore fire carries no prompt: the runner decides (at claim time) what, if anything, starts.
      const resolved = typeof payload.prompt !== 'string' && env.hooks?.resolveProactive ? await env.hooks.resolveProactive(trigger) : undefined;
      if (typeof payload.prompt !== 'string' && env.hooks?.resolveProactive && !resolved) break;
      const p = resolved ?? (payload as unknown as ProactivePayload);
      if (typeof p.prompt !== 'string' || !p.prompt.trim()) throw new Error(`Proactive trigger ${trigger.id} has no prompt; the emitter must set payload.prompt.`);
      await createTask(env, {
        id,
        name: p.name ?? p.prompt.slice(0, 60),
        instruction: p.prompt,
        mode: p.mode ?? 'simple',
        skills: p.skills,
        actionSets: p.actionSets,
        source: p.choreId ? `chore:${p.choreId}` : trigger.source,
        origin: { ...payload, ...resolved, triggerId: trigger.id },
        ...(p.choreId && p.runId ? { chore: { choreId: p.choreId, runId: p.runId } } : {}),
      });
      break;
    }
    case 'rearm_wait': {
      // Nobody answered: the same trigger sleeps another 3 h. No model call, no tokens.
      await env.triggers.rearm(trigger.id, env.clock.now() + WAIT_REARM_MS);
      env.logger.info('TASK', `${trigger.sessionId} still waiting for the user; re-armed for 3 h`);
      break;
    }
    case 'complex_task':
    case 'simple_task': {
      const task = env.state.taskOf(trigger.sessionId);
      if (!task) break;
      if (typeof payload.text === 'string') await env.state.appendEvent(task.sessionId, 'user_message', { text: payload.text });
      if (trigger.source === 'approval') {
        const a = payload as unknown as ApprovalPayload;
        if (task.waitingForApproval && task.waitingForApproval !== a.approvalId) break;
        delete task.waitingForApproval;
        await env.state.appendEvent(task.sessionId, 'user_message', { text: `Approval ${a.approvalId}: ${a.decision}${a.note ? ` (${a.note})` : ''}` });
      }
      env.busy.add(task.sessionId);
      try {
        await runLiveTurn(env, task.sessionId, async (live) => {
          try {
            await runTaskTurn(env, task, undefined, live);
          } catch (error) {
            // Stop: keep what was said, and hold the task until the person says how to go on.
            if (!(error instanceof ModelStoppedError && live.stopped && !env.signal.aborted)) throw error;
            await commitStopped(env, task.sessionId, live);
            await pauseTask(env, task, 'stopped', 'Stopped. Continue resumes the task; Abort ends it.');
          }
        });
      } catch (error) {
        if (error instanceof TaskStopped) {
          await endTask(env, task, { status: 'error', summary: error.message });
        } else {
          // Shutting down mid-call is not the model's fault: nack, and the next start redoes the turn.
          if (!(error instanceof ModelError) || env.signal.aborted) throw error;
          await handleTaskModelError(env, task, error);
        }
      } finally {
        env.busy.delete(task.sessionId);
      }
      break;
    }
    case 'conversation': {
      const session = env.state.sessions.get(trigger.sessionId);
      if (!session) break;
      if (payload.route === true && typeof payload.text === 'string' && (await routeIncoming(env, session, payload.text))) break;
      session.status = 'working';
      env.state.saveSession(session);
      env.busy.add(session.id);
      try {
        await runLiveTurn(env, session.id, async (live) => {
          try {
            await runConversationTurn(env, session, live);
          } catch (error) {
            // Stop: what streamed so far is the reply, marked stopped; no error line, no retry.
            if (!(error instanceof ModelStoppedError && live.stopped && !env.signal.aborted)) throw error;
            await commitStopped(env, session.id, live);
            session.status = 'idle';
            delete session.retryPayload;
            env.state.saveSession(session);
          }
        });
      } catch (error) {
        if (env.signal.aborted) throw error;
        session.status = 'error';
        session.retryPayload = { ...payload, route: false };
        env.state.saveSession(session);
        const text = error instanceof ModelError ? error.message : `Something went wrong in this turn: ${(error as Error).message}`;
        await env.state.appendMessage(session.id, 'error', `${text} Your message is kept; retry when fixed.`, { retryable: true });
        env.logger.error('CHAT', `turn failed in ${session.id}`, error);
      } finally {
        env.busy.delete(session.id);
      }
      break;
    }
    case 'stale':
      break;
  }
  await env.state.commit();
  return rung;
}
