/**
 * ui.thread_open_happydom and ui.thread_append_happydom: the thread of a conversation with 50 task
 * blocks and 2,000 step rows, built by the webview's own modules (TaskBlock, StepList) in
 * happy-dom, NOT in Chromium: no layout or paint happens, so "open" is the time to build and
 * attach the DOM the browser would then lay out (each block builds the rows it shows: its latest
 * ones, src/webview/stepRows.ts). Named `_happydom` so it is never read as a browser figure.
 * Baseline, same run and same DOM: the same 2,000 rows as plain text nodes.
 */
import type { TaskView } from '../src/shared/protocol';
import type { StepView } from '../src/shared/threadProtocol';
import { WEBVIEW_WORDS } from '../src/shared/webviewWords';
import { TaskBlock } from '../src/webview/taskBlock';
import { useWords } from '../src/webview/words';
import { emitLine, median, p95, round } from './support';

const BLOCKS = 50;
const ROWS = 2_000;
const RUNS = 7;
const APPENDS = 200;

const GLOBALS = ['window', 'document', 'Node', 'Element', 'HTMLElement', 'KeyboardEvent', 'MouseEvent', 'Event', 'CSS', 'MutationObserver'] as const;

const task = (i: number): TaskView => ({
  id: `t-${i}`,
  sessionId: `t-${i}`,
  name: `Task ${i}`,
  mode: 'simple',
  status: 'running',
  todos: [],
  counters: { actions: 40, tokens: 56_000, cost: 0.1 },
  budget: { actions: 50, tokens: 500_000 },
  waitingForUser: false,
  paused: false,
});
const step = (i: number, seq: number): StepView => ({
  id: `c-${i}-${seq}`,
  seq,
  rev: 1,
  kind: 'read',
  text: ['Read ', { code: `src/file${seq}.ts` }],
  state: 'done',
});

/** Runs the figures in a fresh happy-dom window whose globals the webview modules use. */
export async function measureThreadInHappyDom(): Promise<void> {
  const { Window } = await import('happy-dom');
  const window = new Window({ url: 'https://webview.test/' });
  for (const name of GLOBALS) {
    const value = name === 'window' ? window : (window as unknown as Record<string, unknown>)[name];
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  // The words the host would send (src/webview/words.ts), in English as a host without a translation.
  useWords(WEBVIEW_WORDS);
  const perBlock = ROWS / BLOCKS;
  const opens: number[] = [];
  const baselines: number[] = [];
  let blocks: TaskBlock[] = [];
  for (let run = 0; run < RUNS; run++) {
    const transcript = window.document.createElement('section');
    window.document.body.replaceChildren(transcript as never);
    let t0 = performance.now();
    blocks = [];
    for (let b = 0; b < BLOCKS; b++) {
      const block = new TaskBlock(task(b), { request: () => new Promise(() => undefined), openDetails: () => undefined });
      // Each block's steps come as the one page the host answers `thread.loadSteps` with (pushed as rows,
      // as bench/uiThreadOpen.ts plays them); live steps are the appends below.
      block.page(Array.from({ length: perBlock }, (_, s) => step(b, s + 1)));
      transcript.appendChild(block.element as never);
      blocks.push(block);
    }
    opens.push(performance.now() - t0);
    const plain = window.document.createElement('section');
    window.document.body.replaceChildren(plain as never);
    t0 = performance.now();
    for (let r = 0; r < ROWS; r++) {
      const row = window.document.createElement('div');
      row.textContent = `Read src/file${r}.ts`;
      plain.appendChild(row);
    }
    baselines.push(performance.now() - t0);
  }
  const transcript = window.document.createElement('section');
  window.document.body.replaceChildren(transcript as never);
  for (const block of blocks) transcript.appendChild(block.element as never);
  const appends: number[] = [];
  const plainAppends: number[] = [];
  const plain = window.document.createElement('section');
  window.document.body.appendChild(plain);
  for (let a = 0; a < APPENDS; a++) {
    let t0 = performance.now();
    blocks[a % BLOCKS]!.step(step(a % BLOCKS, perBlock + 1 + a));
    appends.push(performance.now() - t0);
    t0 = performance.now();
    const row = window.document.createElement('div');
    row.textContent = `Read src/extra${a}.ts`;
    plain.appendChild(row);
    plainAppends.push(performance.now() - t0);
  }
  emitLine({
    name: 'ui.thread_open_happydom',
    value: round(median(opens)),
    unit: 'ms',
    baseline: round(median(baselines)),
    ratio: round(median(opens) / Math.max(median(baselines), 0.001)),
    blocks: BLOCKS,
    rows: ROWS,
    note: 'happy-dom, not a browser: DOM built and attached, no layout or paint',
  });
  emitLine({
    name: 'ui.thread_append_happydom',
    value: round(p95(appends)),
    unit: 'ms',
    baseline: round(p95(plainAppends)),
    stat: 'p95',
    appends: APPENDS,
    note: 'happy-dom, not a browser',
  });
  await window.happyDOM.close();
}
