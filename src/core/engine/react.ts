/**
 * react(trigger): the routing ladder of docs/DESIGN.md §2, first match wins. `chooseRung` is pure so
 * each rung is testable on its own; `react` runs the chosen rung.
 */
import { ModelError } from '../model/types';
import type { Trigger } from '../store/types';
import { routeAnswer, routeIncoming, runConversationTurn } from './conversation';
import { runMemoryRung } from './memoryRung';
import type { EngineEnv, TurnClaim } from './engineEnv';
import { LATE_NOTE_MS, STALE_MS, WAIT_REARM_MS } from './engineEnv';
import type { EngineState } from './engineState';
import { commitStopped, runLiveTurn } from './liveTurn';
import { ensureUserLine } from './sendPath';
import { isAbortError } from './stopping';
import { TaskStopped } from './taskHooks';
import { createTask, deliverLateInput, endTask, isTimerOnly, pauseTask, settleWaits, sleepUntilReply } from './taskLifecycle';
import type { TaskRecord } from './records';
import { handleTaskModelError, runTaskTurn } from './taskTurn';
import { PROACTIVE_SOURCES, approvalMessage, proactiveTaskId, readPayload } from './triggerPayloads';
import type { ProactivePayload } from './triggerPayloads';

export type Rung = 'restart_notice' | 'memory' | 'proactive' | 'rearm_wait' | 'complex_task' | 'simple_task' | 'conversation' | 'stale';

function payloadOf(trigger: Trigger): Record<string, unknown> {
  return trigger.payload && typeof trigger.payload === 'object' ? (trigger.payload as Record<string, unknown>) : {};
}

/** Whether the trigger brings something for a waiting task (a message or a decision). */
function carriesMessage(trigger: Trigger): boolean {
  const p = payloadOf(trigger);
  return typeof p.text === 'string' || p.wake === 'reply' || trigger.source === 'approval';
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function describeDelay(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(ms / 3_600_000);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}

/** The lateness note (DESIGN: lateness is told), or undefined when the trigger is on time. */
export function lateNote(env: EngineEnv, trigger: Trigger): string | undefined {
  const late = env.clock.now() - trigger.fireAt;
  if (late <= LATE_NOTE_MS) return undefined;
  const closed = trigger.fireAt < env.startedAt;
  // A message that merely queued behind a long turn needs no note; a timer does (a wait is over).
  const timed = isTimerOnly(trigger) || PROACTIVE_SOURCES.has(trigger.source);
  if (!closed && !timed) return undefined;
  const why = closed ? 'because VS Code was closed (or the computer was asleep)' : 'because earlier work held the queue';
  return `This was scheduled for ${iso(trigger.fireAt)} and is delivered ${describeDelay(late)} late (now ${iso(env.clock.now())}), ${why}. Take the delay into account (a wait is over, results may be stale).`;
}

/**
 * A timed wake of a task (no input of the person in it) more than a day overdue is not run
 * blindly: the task asks the person whether to go on, and sleeps until they answer.
 */
async function settleStale(env: EngineEnv, task: TaskRecord, trigger: Trigger): Promise<void> {
  const late = env.clock.now() - trigger.fireAt;
  const text = `This task's next step was due ${iso(trigger.fireAt)}, ${describeDelay(late)} ago (VS Code was closed). I did not run it blindly: reply to go on (say if anything changed), or cancel the task.`;
  await env.state.appendEvent(task.sessionId, 'late', {
    text: `The step due ${iso(trigger.fireAt)} was settled as stale (${describeDelay(late)} overdue); the user was asked whether to go on.`,
  });
  await env.state.appendMessage(task.sessionId, 'event', text);
  task.waitingForUser = true;
  env.state.saveTask(task);
  await env.state.commit();
  await sleepUntilReply(env, task);
  env.logger.warn('TASK', `${task.id}: ${trigger.source} ${trigger.id} ${describeDelay(late)} overdue, settled as stale`);
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

/**
 * Runs the rung `trigger` calls for. `claim` is its claim: a task turn that queues its
 * continuation acks it in the same write (see `TurnClaim`); otherwise the caller acks.
 */
export async function react(env: EngineEnv, trigger: Trigger, claim?: TurnClaim): Promise<Rung> {
  const rung = chooseRung(trigger, env.state);
  env.logger.info('REACT', `${trigger.source} ${trigger.id} session=${trigger.sessionId} → ${rung}`);
  // Parsed once, here, where the trigger is claimed: a payload that does not fit its source throws
  // InvalidTriggerPayload and the agent dead-letters the trigger (triggerPayloads.ts).
  const read = readPayload(trigger);
  const payload = payloadOf(trigger);
  const text = read.kind === 'user_message' || read.kind === 'continuation' ? read.payload?.text : undefined;
  switch (rung) {
    case 'restart_notice': {
      // The store emits one notice per restart (session 'system'); every lane with a live task hears it.
      const sessions = env.state.sessions.has(trigger.sessionId) ? [trigger.sessionId] : env.state.activeTasks().map((t) => t.sessionId);
      for (const sessionId of sessions) {
        await env.state.appendMessage(sessionId, 'event', 'I was restarted; picking up where I left off.');
        if (env.state.taskOf(sessionId))
          await env.state.appendEvent(sessionId, 'restart', {
            text: 'The extension restarted. Check the state of anything you were in the middle of before going on.',
          });
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
      let p: ProactivePayload;
      if (read.kind === 'chore_fire') {
        if (!env.hooks?.resolveProactive) throw new Error(`Proactive trigger ${trigger.id} is a chore fire, but no chore runner is attached to start it.`);
        const resolved = await env.hooks.resolveProactive(trigger);
        if (!resolved) break;
        p = resolved;
      } else if (read.kind === 'proactive') {
        p = read.payload;
      } else {
        break;
      }
      const started = await createTask(env, {
        id,
        name: p.name ?? p.prompt.slice(0, 60),
        instruction: p.prompt,
        mode: p.mode ?? 'simple',
        skills: p.skills,
        actionSets: p.actionSets,
        source: p.choreId ? `chore:${p.choreId}` : trigger.source,
        origin: { ...payload, ...p, triggerId: trigger.id },
        ...(p.limits ? { limits: p.limits } : {}),
        ...(p.choreId && p.runId ? { chore: { choreId: p.choreId, runId: p.runId } } : {}),
      });
      // A fire delivered late (drift latest/catchup, or VS Code was closed) tells its task so.
      const late = started && lateNote(env, trigger);
      if (started && late) await env.state.appendEvent(started.sessionId, 'late', { text: late });
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
      if (isTimerOnly(trigger) && env.clock.now() - trigger.fireAt > STALE_MS) {
        await settleStale(env, task, trigger);
        return 'stale';
      }
      // Whatever wakes the task settles its other waits (one wait per task).
      await settleWaits(env, task, trigger.id);
      const late = lateNote(env, trigger);
      if (late) await env.state.appendEvent(task.sessionId, 'late', { text: late });
      if (text !== undefined) await env.state.appendEvent(task.sessionId, 'user_message', { text });
      if (read.kind === 'approval') {
        const a = read.payload;
        if (task.waitingForApproval && task.waitingForApproval !== a.approvalId) break;
        delete task.waitingForApproval;
        await env.state.appendEvent(task.sessionId, 'user_message', { text: approvalMessage(a), ...(a.stale ? { stale: a.stale } : {}) });
      }
      const turn = env.turns.begin(task.sessionId, env.signal);
      try {
        await runLiveTurn(env, task.sessionId, turn, async (live) => {
          try {
            await runTaskTurn(env, task, {
              signal: turn.signal,
              keyBase: trigger.id,
              seenInputs: env.state.sessions.get(task.sessionId)?.inputs,
              live,
              ...(claim ? { claim } : {}),
            });
          } catch (error) {
            if (env.signal.aborted || !(turn.stopped || isAbortError(error, turn.signal))) throw error;
            // Cancel ended the task already; Stop keeps what was said and holds the task until
            // the person says how to go on (Continue / Cancel).
            if (task.status !== 'running') return;
            await commitStopped(env, task.sessionId, live);
            await pauseTask(env, task, 'stopped', 'Stopped. Continue resumes the task; Cancel ends it.');
          }
        });
      } catch (error) {
        // Shutting down mid-call is not the model's fault: nack, and the next start redoes the turn.
        if (env.signal.aborted) throw error;
        if (turn.stopped || isAbortError(error, turn.signal)) {
          // Stopped by the person: whoever stopped it ended the task; nothing is retried or queued.
          env.logger.info('TASK', `${task.id}: turn stopped`);
        } else if (error instanceof TaskStopped) {
          if (error.pauseAtBudget) await pauseTask(env, task, 'budget', error.message);
          else await endTask(env, task, { status: 'error', summary: error.message });
        } else {
          if (!(error instanceof ModelError)) throw error;
          await handleTaskModelError(env, task, error);
        }
      } finally {
        turn.end();
      }
      if (!env.signal.aborted) await deliverLateInput(env, task.sessionId);
      break;
    }
    case 'conversation': {
      const session = env.state.sessions.get(trigger.sessionId);
      if (!session) break;
      const message = read.kind === 'user_message' ? read.payload : undefined;
      // A crash between the send's commit and its line left the line to this turn (sendPath.ts).
      if (message?.requestId && message.text !== undefined) await ensureUserLine(env, session.id, message.text, message.requestId);
      if (message?.answerAmong?.length && message.text !== undefined && (await routeAnswer(env, session, message.text, message.answerAmong))) break;
      if (message?.route === true && message.text !== undefined && (await routeIncoming(env, session, message.text))) break;
      // A burst is answered once: a turn that already saw every input of the session (or a
      // re-delivery of a turn whose reply was committed) has nothing left to answer.
      if (message?.retry !== true && session.inputs !== undefined && (session.answered ?? 0) >= session.inputs) {
        env.logger.info('CHAT', `${session.id}: ${trigger.id} coalesced (its message was answered by an earlier turn)`);
        break;
      }
      const late = lateNote(env, trigger);
      if (late) await env.state.appendMessage(session.id, 'event', late);
      const seen = session.inputs;
      session.status = 'working';
      env.state.saveSession(session);
      const turn = env.turns.begin(session.id, env.signal);
      let stoppedTurn = false;
      try {
        await runLiveTurn(env, session.id, turn, (live) =>
          runConversationTurn(env, session, { signal: turn.signal, keyBase: trigger.id, seen, live }).catch(async (error: unknown) => {
            if (env.signal.aborted || !(turn.stopped || isAbortError(error, turn.signal))) throw error;
            // Stop: what streamed so far is the reply, marked stopped; no error line, no retry.
            await commitStopped(env, session.id, live);
            stoppedTurn = true;
          }),
        );
        if (seen !== undefined) session.answered = Math.max(session.answered ?? 0, seen);
        if (stoppedTurn) {
          session.status = 'idle';
          delete session.retryPayload;
        }
        env.state.saveSession(session);
      } catch (error) {
        if (env.signal.aborted) throw error;
        if (turn.stopped || isAbortError(error, turn.signal)) {
          // Stop: no error line, no retry. What the person typed stays in the transcript.
          session.status = 'idle';
          if (seen !== undefined) session.answered = Math.max(session.answered ?? 0, seen);
          env.state.saveSession(session);
          env.logger.info('CHAT', `${session.id}: turn stopped`);
        } else {
          session.status = 'error';
          session.retryPayload = { ...message, route: false, retry: true };
          env.state.saveSession(session);
          const text = error instanceof ModelError ? error.message : `Something went wrong in this turn: ${(error as Error).message}`;
          await env.state.appendMessage(
            session.id,
            'error',
            `${text} Your message is kept: once this is fixed, send another message ("retry" will do) and it is answered too.`,
            { retryable: true },
          );
          env.logger.error('CHAT', `turn failed in ${session.id}`, error);
        }
      } finally {
        turn.end();
      }
      break;
    }
    case 'stale':
      break;
  }
  await env.state.commit();
  return rung;
}
