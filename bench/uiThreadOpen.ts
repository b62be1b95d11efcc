/**
 * ui.thread_open and ui.thread_append, in the real workbench's Tasklane view in Chromium: a
 * conversation whose thread has 50 task blocks and 2,000 step rows. The host's messages are
 * played into the view's page as the host posts them (an `init` carrying the conversation and its
 * 50 tasks, then one `thread.steps` page per block, each its own message event, as the host
 * answers `thread.loadSteps`); the view's own requests still go to the real host, which knows none
 * of these tasks and answers with nothing.
 *
 * ui.thread_open: from showing the conversation until the frame that paints it with its end in
 * view (the last block's rows drawn: its latest ones, the rest counted on "Show N earlier steps")
 * has been painted. ui.thread_append: one live step (a
 * `thread.step` message) appended to the last block with the transcript at its end, until laid
 * out (as ui.stream_append), p95. Baselines, same run and same view: the 2,000 rows as plain text
 * lines in the transcript, painted; one plain text line appended to that transcript, laid out.
 */
import type { Frame } from 'playwright-core';
import type { HostMessage, TaskView } from '../src/shared/protocol';
import type { StepView } from '../src/shared/threadProtocol';
import { emitLine, median, p95, round } from './support';

const BLOCKS = 50;
const ROWS = 2_000;
const RUNS = 5;
const APPENDS = 60;

const task = (i: number): TaskView => ({
  id: `t-bench-${i}`,
  sessionId: `t-bench-${i}`,
  name: `Task ${i}`,
  mode: 'simple',
  status: i === BLOCKS - 1 ? 'running' : 'completed',
  todos: [],
  counters: { actions: 40, tokens: 56_000, cost: 0.1 },
  budget: { actions: 50, tokens: 500_000 },
  waitingForUser: false,
  paused: false,
  ...(i === BLOCKS - 1 ? {} : { finalSummary: `Task ${i} is done.` }),
});

const step = (block: number, seq: number): StepView => ({
  id: `c-${block}-${seq}`,
  seq,
  rev: seq,
  kind: seq % 5 === 0 ? 'command' : 'read',
  text: seq % 5 === 0 ? ['Ran ', { code: 'npm run build' }] : ['Read ', { code: `src/file${seq}.ts` }],
  state: 'done',
  ...(seq % 5 === 0 ? { note: '✓ 1.5 s' } : {}),
});

/** The messages the host sends for the conversation `sessionId`: its state, then each block's steps. */
export function hostMessagesForBench(sessionId: string): { init: HostMessage; pages: HostMessage[] } {
  const tasks = Array.from({ length: BLOCKS }, (_, i) => task(i));
  const perBlock = ROWS / BLOCKS;
  const messages = tasks.flatMap((t, i) => [
    { role: 'user' as const, text: `Please do part ${i} of the work.`, at: i * 10 },
    { role: 'event' as const, text: `Started task “${t.name}” (simple).`, at: i * 10 + 1, taskId: t.id },
  ]);
  const init: HostMessage = {
    type: 'init',
    state: {
      model: { provider: 'openai-compatible', model: 'bench' },
      restricted: false,
      approvals: [],
      sessions: [{ id: sessionId, name: 'A long conversation', status: 'idle', lastActivity: 1, waitingForUser: false, pendingApprovals: 0, messages }],
      tasks,
      deadLetters: [],
    },
  };
  // Each block's steps as one push of rows (they merge by id like the reply to `thread.loadSteps`,
  // which the real host answers for these made-up tasks with no rows).
  const pages: HostMessage[] = tasks.map((t, b) => ({
    type: 'thread.step',
    taskId: t.id,
    steps: Array.from({ length: perBlock }, (_, s) => step(b, s + 1)),
  }));
  return { init, pages };
}

/**
 * In the view's page: shows the conversation, plays the step pages as separate message events
 * (the host's answers), and resolves with the ms until the frame with the last block's rows is
 * painted. `plain` measures the baseline instead: the same rows as text lines.
 */
function timeOpen(frame: Frame, sessionId: string, init: HostMessage, pages: HostMessage[], plain: boolean): Promise<number> {
  return frame.evaluate(
    async ({ sessionId, init, pages, plain, lastTaskId, perBlock }) => {
      const deliver = (data: unknown) => window.dispatchEvent(new MessageEvent('message', { data }));
      const painted = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const transcript = document.querySelector('#transcript') as HTMLElement;
      deliver({ type: 'view.newChat' });
      deliver(init);
      await painted();
      const started = performance.now();
      if (plain) {
        transcript.replaceChildren();
        for (const page of pages as Array<{ steps: Array<{ text: Array<string | { code: string }> }> }>) {
          for (const s of page.steps) {
            const row = document.createElement('div');
            row.textContent = s.text.map((p) => (typeof p === 'string' ? p : p.code)).join('');
            transcript.appendChild(row);
          }
        }
        transcript.scrollTop = transcript.scrollHeight;
        await painted();
        return performance.now() - started;
      }
      deliver({ type: 'showSession', sessionId });
      // The host's answers arrive as message events of their own, in order.
      for (const page of pages) window.postMessage(page, '*');
      await new Promise<void>((resolve, reject) => {
        const deadline = started + 30_000;
        const check = () => {
          // The last block shows its latest rows and says how many earlier ones wait (src/webview/stepRows.ts):
          // done when every one of its steps is accounted for, the newest drawn.
          const last = document.querySelector(`.task-block[data-task-id="${CSS.escape(lastTaskId)}"]`);
          const rows = last ? last.querySelectorAll(':scope > .steps > .step').length : 0;
          const earlier = Number(last?.querySelector(':scope > .steps-earlier:not([hidden])')?.textContent?.match(/\d+/)?.[0] ?? 0);
          if (last && rows > 0 && rows + earlier >= perBlock) resolve();
          else if (performance.now() > deadline) reject(new Error('the last block never got its rows'));
          else setTimeout(check, 0);
        };
        check();
      });
      await painted();
      return performance.now() - started;
    },
    { sessionId, init, pages, plain, lastTaskId: task(BLOCKS - 1).id, perBlock: ROWS / BLOCKS },
  );
}

/** Appends one live step to the last block (`plain`: a text line to the transcript) and resolves with the ms until it is laid out. */
function timeAppend(frame: Frame, message: HostMessage, plain: boolean): Promise<number> {
  return frame.evaluate(
    async ({ message, plain }) => {
      const transcript = document.querySelector('#transcript') as HTMLElement;
      // A frame between appends, as live steps arrive.
      await new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const started = performance.now();
      if (plain) {
        const row = document.createElement('div');
        row.textContent = 'Read src/extra.ts';
        transcript.appendChild(row);
        transcript.scrollTop = transcript.scrollHeight;
      } else window.dispatchEvent(new MessageEvent('message', { data: message }));
      void transcript.offsetHeight; // force layout
      return performance.now() - started;
    },
    { message, plain },
  );
}

/** Runs both figures in the Tasklane view `frame` (the real workbench, in Chromium). */
export async function measureThreadOpen(frame: Frame): Promise<void> {
  const sessionId = 's-bench-thread';
  const { init, pages } = hostMessagesForBench(sessionId);
  // tsx keeps function names with a helper the page does not have; give it one (a string, so not transformed).
  await frame.evaluate('globalThis.__name ??= (f) => f');
  const opens: number[] = [];
  const baselines: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    opens.push(await timeOpen(frame, sessionId, init, pages, false));
    baselines.push(await timeOpen(frame, sessionId, init, pages, true));
  }
  // The thread open again, for the appends.
  await timeOpen(frame, sessionId, init, pages, false);
  const last = task(BLOCKS - 1).id;
  const appends: number[] = [];
  for (let a = 0; a < APPENDS; a++) {
    const seq = ROWS / BLOCKS + 1 + a;
    appends.push(await timeAppend(frame, { type: 'thread.step', taskId: last, steps: [step(BLOCKS - 1, seq)] }, false));
  }
  const plainAppends: number[] = [];
  for (let a = 0; a < APPENDS; a++) plainAppends.push(await timeAppend(frame, { type: 'view.newChat' }, true));
  const open = median(opens);
  const baseline = median(baselines);
  emitLine({
    name: 'ui.thread_open',
    value: round(open),
    unit: 'ms',
    target: 150,
    baseline: round(baseline),
    baseline_name: 'the same 2,000 rows as plain text lines, painted',
    ratio: round(open / Math.max(baseline, 0.001)),
    p95: round(p95(opens)),
    blocks: BLOCKS,
    rows: ROWS,
    runs: RUNS,
  });
  emitLine({
    name: 'ui.thread_append',
    value: round(p95(appends)),
    unit: 'ms',
    target: 4,
    stat: 'p95',
    baseline: round(p95(plainAppends)),
    baseline_name: 'one plain text line appended to the transcript, laid out',
    median: round(median(appends)),
    appends: APPENDS,
  });
  // Leave the view as a new chat for what is measured next.
  await frame.evaluate(() => window.dispatchEvent(new MessageEvent('message', { data: { type: 'view.newChat' } })));
}
