/**
 * ui.decision_visible, in the real workbench's Tasklane view in Chromium: from a click on a task
 * block's Approve until the frame that shows the decided state (the approval gone from the block,
 * the task no longer "waiting for you") has been painted. The host's state is played into the page
 * as the host posts it (an `init` with a conversation, its waiting task and the pending approval);
 * the click's `approval.approve` goes to the real host, which knows no such approval (it says so
 * and changes nothing). Each run then plays the host's `approvalRemoved`, as a decision that
 * settled, so the view holds no decision in flight when the next run starts from a fresh `init`
 * (an `init` does not show an approval the view is deciding as waiting). Baseline, same run and same view: a click on a plain button whose handler changes one
 * line of text, until that frame is painted.
 */
import type { Frame } from 'playwright-core';
import type { HostMessage } from '../src/shared/protocol';
import { approvalView, taskView } from '../test/unit/webview/support/views';
import { emitLine, median, p95, round } from './support';

const RUNS = 20;
const SESSION = 's-bench-decision';
const TASK = 't-bench-decision';

const waitingTask = taskView({ id: TASK, sessionId: TASK, waitingForApproval: true });
const approval = (run: number) => approvalView({ id: `cs-bench-${run}`, taskId: TASK, sessionId: TASK, createdAt: run });

function init(run: number): HostMessage {
  return {
    type: 'init',
    state: {
      model: { provider: 'openai-compatible', model: 'bench' },
      restricted: false,
      approvals: [approval(run)],
      sessions: [
        {
          id: SESSION,
          name: 'Add greetAll',
          status: 'idle',
          lastActivity: 1,
          waitingForUser: false,
          pendingApprovals: 1,
          messages: [
            { role: 'user', text: 'Add greetAll to src/greet.js', at: 1 },
            { role: 'event', text: 'Started task “Add greetAll” (simple).', at: 2, taskId: TASK },
          ],
        },
      ],
      tasks: [waitingTask],
      deadLetters: [],
    },
  };
}

/** One click and the ms until the frame showing its outcome is painted (`plain`: the baseline). */
function timeClick(frame: Frame, message: HostMessage, plain: boolean): Promise<number> {
  return frame.evaluate(
    async ({ message, plain, sessionId, taskId, approvalId }) => {
      const painted = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'view.newChat' } }));
      window.dispatchEvent(new MessageEvent('message', { data: message }));
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'showSession', sessionId } }));
      await painted();
      const block = document.querySelector<HTMLElement>(`.task-block[data-task-id="${CSS.escape(taskId)}"]`);
      if (!block || block.getAttribute('data-state') !== 'waiting for you') throw new Error('the waiting block was not drawn');
      if (plain) {
        const button = document.createElement('button');
        const line = document.createElement('div');
        button.addEventListener('click', () => (line.textContent = 'decided'));
        block.after(button, line);
        const started = performance.now();
        button.click();
        await painted();
        const took = performance.now() - started;
        button.remove();
        line.remove();
        return took;
      }
      const approve = block.querySelector<HTMLElement>('.block-approval .approve');
      if (!approve) throw new Error('the block shows no Approve');
      const started = performance.now();
      approve.click();
      await painted();
      const shown = block.getAttribute('data-state') !== 'waiting for you' && !block.querySelector('.block-approval');
      if (!shown) throw new Error('the decision was not on screen in the frame after the click');
      const took = performance.now() - started;
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'approvalRemoved', id: approvalId } }));
      return took;
    },
    { message, plain, sessionId: SESSION, taskId: TASK, approvalId: (message.type === 'init' && message.state.approvals[0]?.id) || '' },
  );
}

/** Runs ui.decision_visible in the Tasklane view `frame` (the real workbench, in Chromium). */
export async function measureDecision(frame: Frame): Promise<void> {
  await frame.evaluate('globalThis.__name ??= (f) => f');
  const decisions: number[] = [];
  const baselines: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    decisions.push(await timeClick(frame, init(run), false));
    // An approval of its own: the one just decided may still be in flight (the host's refusal not
    // back yet), and an `init` that lists it then keeps it decided (approvalStore.ts).
    baselines.push(await timeClick(frame, init(RUNS + run), true));
  }
  emitLine({
    name: 'ui.decision_visible',
    value: round(median(decisions)),
    unit: 'ms',
    target: 100,
    p95: round(p95(decisions)),
    baseline: round(median(baselines)),
    baseline_p95: round(p95(baselines)),
    baseline_name: 'a plain button whose click changes one line of text, painted',
    runs: RUNS,
  });
  await frame.evaluate(() => window.dispatchEvent(new MessageEvent('message', { data: { type: 'view.newChat' } })));
}
