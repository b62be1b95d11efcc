/**
 * Stop on a working task's block: the task pauses after the step in flight, and is kept. Unlike
 * `Agent.stop` (the composer's Stop, which aborts the turn at once and keeps what streamed), the
 * step's model call and the actions it asked for run to their end, so nothing is left half done
 * (an edit half applied, a command killed mid-run): the person stops the task, not the step.
 *
 * How: a durable flag on the task (`stopAfterStep`). Every next step of a task is queued by
 * `continueLater`, which pauses the task instead while the flag is set; a turn that starts with it
 * set (its trigger was queued before the Stop) pauses before calling the model. A step that ends
 * waiting for the person (a question, an approval) clears it: the answer moves the task on.
 * Continue resumes a stopped task through the durable queue like any pause (Agent.continueTask).
 */
import type { EngineEnv } from './engineEnv';
import type { TaskRecord } from './records';
import { pauseAsAsked } from './taskLifecycle';

/**
 * Asks `task` to pause after its current step: at once when no step is running. Refused (a
 * throw that says what to do instead) when the task waits for the person, who then has nothing
 * to stop. A paused task is left as it is.
 */
export async function stopAfterStep(env: EngineEnv, task: TaskRecord): Promise<void> {
  if (task.paused || task.stopAfterStep) return;
  const running = env.turns.has(task.sessionId);
  if (!running && (task.waitingForUser || task.waitingForApproval)) {
    throw new Error(`"${task.name}" is waiting for you and takes no step until you answer: answer it, or Cancel it.`);
  }
  task.stopAfterStep = true;
  env.state.saveTask(task);
  env.logger.info('TASK', `${task.id}: Stop asked for; ${running ? 'it pauses after its current step' : 'no step running, it pauses now'}`);
  if (!running) {
    await pauseAsAsked(env, task);
    return;
  }
  await env.state.commit();
}
