/**
 * UI benchmark (docs/DESIGN.md §10), measured in the real workbench in Chromium. First ui.thread_open
 * and ui.thread_append (bench/uiThreadOpen.ts: a thread of 50 task blocks and 2,000 step rows shown
 * and painted; a live step appended), ui.decision_visible (bench/uiDecision.ts: Approve on a block
 * to the decided state painted), then ui.first_token (bench/uiFirstToken.ts: first streamed
 * byte → shown in the sidebar). Then one task with 10,000
 * events: ui.markdown_render (a 2,000-line reply with 20 code blocks appended), ui.trace_open
 * (click Trace → first rows drawn, host round trip included), ui.trace_append (one appended event
 * rendered with all 10,000 events loaded in the list), ui.stream_append (one streamed chunk
 * rendered with that trace open), ui.update_bytes (largest incremental message the host posted while the task ran a turn).
 * Baselines, measured in the same run: a naive full render of all 10,000 rows in the same webview,
 * and the bytes of re-sending the whole trace per update.
 * The events are seeded by writing the task's event log (the engine's JSONL format) and reloading
 * the window, so the extension host reads them like after a restart.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import type { TaskEvent } from '../src/core/engine/types';
import { toTraceEvent } from '../src/host/viewMapping';
import {
  openTasklaneView,
  route,
  runCommand,
  sendChatMessage,
  startUiSession,
  stopSharedWorkbench,
  tasklaneFrame,
  waitForTaskBlock,
} from '../test/ui/support/workbench';
import { emitLine, median, p95, round } from './support';
import { measureFirstToken } from './uiFirstToken';
import { measureThreadInHappyDom } from './uiThreadDom';
import { measureThreadOpen } from './uiThreadOpen';
import { measureDecision } from './uiDecision';

const EVENTS = 10_000;
const RUNS = 7;

function emit(name: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  emitLine({ name, value: round(value), unit, ...extra });
}

/** A realistic task stream: turn, action_start, action_end with inputs/outputs of a few hundred bytes. */
function seedEvents(count: number, at: number): TaskEvent[] {
  const events: TaskEvent[] = [
    { seq: 1, at, kind: 'task_start', data: { name: 'Bench', instruction: 'Long task', mode: 'simple', actionSets: ['task', 'read'] } },
  ];
  for (let seq = 2; seq <= count; seq++) {
    const i = Math.floor(seq / 3);
    const kind = seq % 3 === 2 ? 'turn' : seq % 3 === 0 ? 'action_start' : 'action_end';
    const data: Record<string, unknown> =
      kind === 'turn'
        ? {
            text: `Step ${i}: reading the next file.`,
            toolCalls: [{ id: `c${i}`, name: 'read_file', rawArguments: `{"path":"src/file${i}.ts"}` }],
            usage: { inputTokens: 1200, outputTokens: 40 },
          }
        : kind === 'action_start'
          ? { callId: `c${i}`, name: 'read_file', input: { path: `src/file${i}.ts` } }
          : { callId: `c${i}`, name: 'read_file', output: `export const value${i} = ${i};\n`.repeat(8), durationMs: 1.5 };
    events.push({ seq, at: at + seq, kind, data });
  }
  return events;
}

function findStreams(runDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.jsonl') && path.basename(dir) === 'events') found.push(full);
    }
  };
  walk(runDir);
  return found;
}

/** Clicks the task block's Details and resolves with the ms until the rows are drawn (measured in the webview). */
function timeOpen(frame: Frame, taskId: string): Promise<number> {
  return frame.evaluate(async (id) => {
    const block = document.querySelector(`.task-block[data-task-id="${CSS.escape(id)}"]`);
    const button = block?.querySelector('.open-details') as HTMLElement | null;
    if (!button) throw new Error('no Details button on the task block');
    const started = performance.now();
    button.click();
    await new Promise<void>((resolve, reject) => {
      const deadline = started + 10_000;
      const check = () => {
        const rows = document.querySelectorAll('.trace-row');
        if (rows.length > 0 && (document.querySelector('.trace-rows')?.textContent ?? '').includes('read_file')) resolve();
        else if (performance.now() > deadline) reject(new Error('trace rows never appeared'));
        else requestAnimationFrame(check);
      };
      check();
    });
    return performance.now() - started;
  }, taskId);
}

async function main(): Promise<void> {
  // The thread with 50 task blocks and 2,000 step rows, in happy-dom (bench/uiThreadDom.ts says why it is named so).
  await measureThreadInHappyDom();
  const ui = await startUiSession({ name: 'bench-ui' });
  let failed = false;
  try {
    await openTasklaneView(ui.page);
    let frame = await tasklaneFrame(ui.page);

    // The thread with 50 task blocks and 2,000 step rows, in this browser (bench/uiThreadOpen.ts).
    await measureThreadOpen(frame);
    // Approve on a task's block, click to the decided state on screen (bench/uiDecision.ts).
    await measureDecision(frame);

    // First token, on a fresh window (before the 10,000-event task exists).
    const ft = await measureFirstToken(ui, frame, RUNS);
    const ftMs = median(ft.firstToken);
    const committedMs = round(median(ft.committed));
    emit('ui.first_token', ftMs, 'ms', {
      target: 50,
      baseline: committedMs,
      baseline_name: 'committed reply shows (what the person waited for without streaming)',
      ratio: round(ftMs / committedMs),
      p95: p95(ft.firstToken),
      runs: RUNS,
    });

    // A task that stays running (it waits an hour), so its card and trace are live.
    // Routed like every answer on the shared workbench: the task's instruction carries the marker.
    const task = route('bench-task');
    await ui.model.reset();
    await ui.script(task, [
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Bench task', instruction: 'Long task', mode: 'simple' } }] },
      { toolCalls: [{ name: 'wait', arguments: { seconds: 3600, reason: 'bench' } }] },
    ]);
    await sendChatMessage(frame, `start the bench task ${task}`);
    await openTaskSession(frame);
    const taskId = (await frame.locator('#transcript .task-block').first().getAttribute('data-task-id')) ?? '';
    const stream = findStreams(ui.server.runDir).find((f) => path.basename(f) === `${taskId}.jsonl`);
    if (!stream) throw new Error(`the event log of ${taskId} was not found under ${ui.server.runDir}`);
    // Give the turn time to finish writing, then append the synthetic history after the real events.
    await ui.page.waitForTimeout(1500);
    const existing = fs.readFileSync(stream, 'utf8').split('\n').filter(Boolean).length;
    const seeded = seedEvents(EVENTS - existing, Date.now()).map((e, i) => ({ ...e, seq: existing + i + 1 }));
    fs.appendFileSync(stream, seeded.map((e) => `${JSON.stringify(e)}\n`).join(''));
    process.stderr.write(`[bench ui] seeded ${seeded.length} events into ${taskId} (${existing} real ones before)\n`);

    // Reload: the extension host re-reads the log like after a restart.
    await ui.page.reload();
    await ui.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    try {
      await openTasklaneView(ui.page);
    } catch {
      // After a reload the workbench may restore Tasklane as the active container with the side
      // bar hidden (clicking it then would not show it): focus the view by its command instead.
      await runCommand(ui.page, 'Tasklane: Focus on Chat View');
    }
    frame = await tasklaneFrame(ui.page, 60_000);
    await openTaskSession(frame);
    await frame.locator(`.task-block[data-task-id="${taskId}"] .open-details`).waitFor({ timeout: 30_000 });

    const markdown = await timeMarkdown(frame);

    const opens: number[] = [];
    for (let i = 0; i < RUNS; i++) opens.push(await timeOpen(frame, taskId));

    // Page backwards until the whole history is in the list, so appends run against 10,000 rows.
    const loaded = await frame.evaluate(async (total) => {
      const viewport = document.querySelector('.trace-viewport') as HTMLElement;
      const spacer = document.querySelector('.trace-spacer') as HTMLElement;
      const rowsNow = () => Math.round(parseFloat(spacer.style.height) / 22);
      const deadline = performance.now() + 60_000;
      while (rowsNow() < total && performance.now() < deadline) {
        const before = rowsNow();
        viewport.scrollTop = 0;
        viewport.dispatchEvent(new Event('scroll'));
        while (rowsNow() === before && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      }
      return rowsNow();
    }, EVENTS);

    const timing = await frame.evaluate(
      async ({ id, from, runs }) => {
        const viewport = document.querySelector('.trace-viewport') as HTMLElement;
        viewport.scrollTop = viewport.scrollHeight;
        const appends: number[] = [];
        for (let i = 0; i < runs * 3; i++) {
          const event = { seq: from + i, type: 'action_end', at: Date.now(), summary: `read_file: appended ${i}`, detail: '{}', durationMs: 1 };
          const started = performance.now();
          window.dispatchEvent(new MessageEvent('message', { data: { type: 'traceAppended', taskId: id, event } }));
          void (document.querySelector('.trace-rows') as HTMLElement).offsetHeight; // force layout
          appends.push(performance.now() - started);
          await new Promise((r) => requestAnimationFrame(() => r(undefined)));
        }
        // Baseline: the naive way, every event as a DOM row, re-rendered on each update.
        const naive: number[] = [];
        for (let r = 0; r < runs; r++) {
          const started = performance.now();
          const box = document.createElement('div');
          for (let i = 0; i < from; i++) {
            const row = document.createElement('div');
            row.className = 'trace-row';
            const type = document.createElement('span');
            type.textContent = 'action_end';
            const summary = document.createElement('span');
            summary.textContent = `read_file: event ${i}`;
            row.append(type, summary);
            box.appendChild(row);
          }
          document.body.appendChild(box);
          void box.offsetHeight;
          naive.push(performance.now() - started);
          box.remove();
        }
        return { appends, naive };
      },
      { id: taskId, from: EVENTS + 1, runs: RUNS },
    );

    const streamed = await timeStreamAppend(frame);

    // Bytes of real incremental messages: capture what the host posts while the task runs a turn.
    await frame.evaluate(() => {
      (window as unknown as { __sizes: number[] }).__sizes = [];
      window.addEventListener('message', (e) => {
        if (e.isTrusted) (window as unknown as { __sizes: number[] }).__sizes.push(new TextEncoder().encode(JSON.stringify(e.data)).length);
      });
    });
    await ui.script(task, [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'wait', arguments: { seconds: 3600 } }] },
    ]);
    await vscodeReply(frame, taskId);
    await ui.page.waitForTimeout(4000);
    const sizes = await frame.evaluate(() => (window as unknown as { __sizes: number[] }).__sizes);
    if (sizes.length === 0) throw new Error('no incremental message reached the webview while the task ran');
    const allEvents = fs
      .readFileSync(stream, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => toTraceEvent(JSON.parse(l) as TaskEvent));
    const fullTrace = Buffer.byteLength(JSON.stringify({ type: 'tracePage', taskId, events: allEvents, hasMore: false }));

    const openMs = median(opens);
    const naiveMs = median(timing.naive);
    const appendMs = median(timing.appends);
    const maxBytes = Math.max(...sizes);
    emit('ui.trace_open', openMs, 'ms', {
      target: 500,
      baseline: naiveMs,
      baseline_name: 'naive render of all rows',
      ratio: round(openMs / naiveMs),
      events: EVENTS,
      p95: p95(opens),
      runs: RUNS,
    });
    emit('ui.trace_append', appendMs, 'ms', {
      target: 16,
      baseline: naiveMs,
      baseline_name: 'naive full re-render of all rows',
      ratio: round(appendMs / naiveMs, 4),
      events: loaded,
      p95: p95(timing.appends),
      runs: timing.appends.length,
    });
    emit('ui.markdown_render', median(markdown.rendered), 'ms', {
      target: 50,
      baseline: median(markdown.plain),
      baseline_name: 'the same reply as plain text (before rendering)',
      ratio: round(median(markdown.rendered) / median(markdown.plain)),
      lines: MARKDOWN_LINES,
      code_blocks: MARKDOWN_BLOCKS,
      p95: p95(markdown.rendered),
      all_sections_ms: round(median(markdown.allSections)),
      coloured_ms: round(median(markdown.coloured)),
      highlighted_blocks: median(markdown.highlightedBlocks),
      runs: markdown.rendered.length,
    });
    const streamMs = median(streamed.appends);
    const streamNaive = median(streamed.naive);
    emit('ui.stream_append', streamMs, 'ms', {
      target: 4,
      baseline: streamNaive,
      baseline_name: 'whole message re-rendered per chunk',
      ratio: round(streamMs / streamNaive),
      chunks: STREAM_CHUNKS,
      trace_events: EVENTS,
      trace_rows_drawn: streamed.traceRows,
      p95: p95(streamed.appends),
      runs: streamed.appends.length,
    });
    emit('ui.update_bytes', maxBytes, 'bytes', {
      target: 10_240,
      baseline: fullTrace,
      baseline_name: 'whole trace re-sent per update',
      ratio: Math.round((maxBytes / fullTrace) * 100000) / 100000,
      messages: sizes.length,
      median: median(sizes),
      events: EVENTS,
      stat: 'max',
    });
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await ui.stop({ keep: failed });
    // The workbench is the tier's shared one, which the UI tier's root hook stops; here nothing
    // else would, and its processes would keep the benchmark from exiting.
    await stopSharedWorkbench();
  }
}

const MARKDOWN_LINES = 2000;
const MARKDOWN_BLOCKS = 20;

/** A long reply: prose, lists, a table and 20 fenced TypeScript blocks, 2,000 lines in all. */
function longReply(): string {
  const lines: string[] = [];
  const perSection = MARKDOWN_LINES / MARKDOWN_BLOCKS;
  for (let b = 0; b < MARKDOWN_BLOCKS; b++) {
    lines.push(
      `## Step ${b + 1}`,
      '',
      `Change **src/file${b}.ts:${b + 10}** so that \`value${b}\` is checked, see [the docs](https://example.com/${b}).`,
      '',
      '- [x] read it',
      '- [ ] change it',
      '',
      '| a | b |',
      '|---|---|',
      `| ${b} | ok |`,
      '',
      '```ts',
    );
    const code = perSection - 14;
    for (let i = 0; i < code; i++)
      lines.push(
        i % 5 === 0
          ? `export function f${b}_${i}(x: number): string { return String(x * ${i}); } // ${i}`
          : `  const v${i} = await load("src/${b}/${i}.ts", { retries: ${i % 3}, strict: true });`,
      );
    lines.push('```', '');
  }
  return lines.slice(0, MARKDOWN_LINES).join('\n');
}

/**
 * ui.markdown_render: one reply of MARKDOWN_LINES lines appended to the open conversation as the
 * host would (a messageAppended message), in the real webview, timed from dispatch until what the
 * person sees of it is rendered and laid out: the transcript follows the bottom, and every element
 * of the reply inside the transcript's view is rendered Markdown, not a placeholder of a section
 * still to come (sectionRenderer.ts renders the end at once and the rest just after; if a
 * placeholder were in view, the clock runs on until it is rendered). `all_sections_ms` is dispatch
 * → the whole reply rendered (no placeholder left, all MARKDOWN_BLOCKS blocks in the DOM), so the
 * cost of the rest is in the same line. Code blocks are coloured afterwards as they come into view
 * (codeHighlighter.ts); `coloured_ms` is dispatch → the blocks in view have their colours, and
 * `highlighted_blocks` how many of the blocks had been coloured by then (the rest wait until
 * scrolled to). Baseline in the same run: the same reply as one plain text node (how replies were
 * shown before Markdown), appended and laid out.
 */
async function timeMarkdown(
  frame: Frame,
): Promise<{ rendered: number[]; plain: number[]; coloured: number[]; allSections: number[]; highlightedBlocks: number[] }> {
  return frame.evaluate(
    async ({ text, runs, blocks }) => {
      const sessionId = document.querySelector('#current-session')?.getAttribute('data-session-id');
      if (!sessionId) throw new Error('the Chat view shows no conversation');
      const transcript = document.querySelector('#transcript') as HTMLElement;
      const rendered: number[] = [];
      const plain: number[] = [];
      const coloured: number[] = [];
      const allSections: number[] = [];
      const highlightedBlocks: number[] = [];
      const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
      for (let r = 0; r < runs; r++) {
        const before = transcript.childElementCount;
        transcript.scrollTop = transcript.scrollHeight; // at the end, as when a reply arrives while reading along
        const started = performance.now();
        window.dispatchEvent(
          new MessageEvent('message', { data: { type: 'messageAppended', sessionId, message: { role: 'assistant', text, at: Date.now() } } }),
        );
        void transcript.offsetHeight; // force layout
        let shownAt = performance.now();
        const message = transcript.lastElementChild as HTMLElement;
        if (transcript.childElementCount !== before + 1 || !message.querySelector('.md')) throw new Error('the reply was not appended as a rendered message');
        // What is in the transcript's view, read on each check: off-screen blocks get their real
        // size only when they come near (content-visibility), which moves the others.
        const inView = (selector: string) => {
          const view = transcript.getBoundingClientRect();
          return [...message.querySelectorAll<HTMLElement>(selector)].filter((c) => {
            const box = c.getBoundingClientRect();
            return box.bottom > view.top && box.top < view.bottom;
          });
        };
        const deadline = performance.now() + 10_000;
        // Visible: something of the reply is in view, and none of it is a placeholder.
        while (inView('.md > *').length === 0 || inView('.md-pending').length > 0) {
          if (performance.now() > deadline) throw new Error('the part of the reply in view was never rendered');
          await tick();
          void transcript.offsetHeight;
          shownAt = performance.now();
        }
        rendered.push(shownAt - started);
        if (!message.querySelector('strong') || inView('.code-block').length === 0)
          throw new Error('what is in view of the reply is not rendered Markdown with its code');
        // The blocks in view get their colours without anything else happening (no scroll, no input).
        for (;;) {
          const shown = inView('.code-block');
          if (shown.length > 0 && shown.every((c) => c.querySelector('pre code .hljs-keyword'))) break;
          if (performance.now() > deadline) throw new Error(`the code blocks in view were never highlighted (${shown.length} in view)`);
          await tick();
        }
        coloured.push(performance.now() - started);
        highlightedBlocks.push(message.querySelectorAll('code[data-highlighted]').length);
        // The rest of the reply, rendered in idle slices: until no placeholder is left.
        while (message.querySelector('.md-pending')) {
          if (performance.now() > deadline) throw new Error('the reply was never rendered in full');
          await tick();
        }
        allSections.push(performance.now() - started);
        if (message.querySelectorAll('.code-block pre code').length !== blocks)
          throw new Error(`the whole reply has ${message.querySelectorAll('.code-block pre code').length} code blocks, not ${blocks}`);
        message.remove();
        const box = document.createElement('div');
        const t0 = performance.now();
        box.className = 'msg';
        box.textContent = text;
        transcript.appendChild(box);
        void transcript.offsetHeight;
        plain.push(performance.now() - t0);
        box.remove();
        await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
      }
      return { rendered, plain, coloured, allSections, highlightedBlocks };
    },
    { text: longReply(), runs: RUNS, blocks: MARKDOWN_BLOCKS },
  );
}

const STREAM_CHUNKS = 400;

/**
 * ui.stream_append: a running turn streams STREAM_CHUNKS text chunks (the long reply, ~40
 * characters each) into the open conversation while the task's 10,000-event trace is open; each
 * chunk is dispatched as the host posts it (a streamDelta message) and timed to laid out.
 * Baseline in the same run: the naive way, the whole message re-rendered (its text re-set) on
 * every chunk, for the same chunks in the same transcript.
 */
async function timeStreamAppend(frame: Frame): Promise<{ appends: number[]; naive: number[]; traceRows: number }> {
  return frame.evaluate(
    async ({ text, chunks }) => {
      const sessionId = document.querySelector('#current-session')?.getAttribute('data-session-id');
      if (!sessionId) throw new Error('the Chat view shows no conversation');
      const traceRows = document.querySelectorAll('.trace-row').length;
      if (traceRows === 0) throw new Error('the trace is not open');
      const transcript = document.querySelector('#transcript') as HTMLElement;
      const size = Math.ceil(text.length / chunks);
      const pieces = Array.from({ length: chunks }, (_, i) => text.slice(i * size, (i + 1) * size));
      const post = (data: unknown) => window.dispatchEvent(new MessageEvent('message', { data }));
      const turnId = `bench-turn-${Date.now()}`;
      post({ type: 'turnState', sessionId, turnId, running: true });
      transcript.scrollTop = transcript.scrollHeight;
      const appends: number[] = [];
      for (const piece of pieces) {
        const started = performance.now();
        post({ type: 'streamDelta', sessionId, turnId, delta: { kind: 'text', text: piece } });
        void transcript.offsetHeight; // force layout
        appends.push(performance.now() - started);
      }
      // The blocks that completed are rendered as Markdown while the reply streams; the last one is its text.
      const bubble = transcript.querySelector('[data-role="streaming"] .msg-text');
      const tail = bubble?.querySelector('.stream-tail')?.textContent ?? '';
      if (!tail || !pieces.join('').endsWith(tail) || !bubble?.querySelector('pre')) throw new Error('the streamed text did not all reach the bubble');
      post({ type: 'turnState', sessionId, turnId, running: false });
      if (transcript.querySelector('[data-role="streaming"]')) throw new Error('the streaming bubble outlived its turn');
      // Baseline: a bubble whose whole text is re-set per chunk, as a view that re-renders the message would.
      const naiveBox = document.createElement('div');
      naiveBox.className = 'msg msg-assistant';
      const naiveText = document.createElement('div');
      naiveText.className = 'msg-text';
      naiveBox.appendChild(naiveText);
      transcript.appendChild(naiveBox);
      const naive: number[] = [];
      let sofar = '';
      for (const piece of pieces) {
        const started = performance.now();
        sofar += piece;
        naiveText.textContent = sofar;
        transcript.scrollTop = transcript.scrollHeight;
        void transcript.offsetHeight;
        naive.push(performance.now() - started);
      }
      naiveBox.remove();
      return { appends, naive, traceRows };
    },
    { text: longReply(), chunks: STREAM_CHUNKS },
  );
}

/** Shows the task's block in its conversation in a (new) sidebar frame, ready for the bench's evaluate calls. */
async function openTaskSession(frame: Frame): Promise<void> {
  // tsx compiles with keepNames: functions passed to evaluate reference a __name helper the page lacks.
  await frame.evaluate('window.__name = (f) => f');
  await waitForTaskBlock(frame);
}

/** Replies to the task from the sidebar (Reply button, then Send), which wakes it for one turn. */
async function vscodeReply(frame: Frame, taskId: string): Promise<void> {
  await frame.locator(`.task-block[data-task-id="${taskId}"] .reply-task`).click();
  await sendChatMessage(frame, 'go on');
}

main().catch((error) => {
  process.stderr.write(`[bench ui] failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
