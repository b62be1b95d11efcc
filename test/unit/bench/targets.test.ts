import * as assert from 'node:assert/strict';

interface Row {
  label: string;
  shown: string;
  target: string;
  margin: string;
  pass: boolean;
}
interface TargetsModule {
  checkTargets(figures: Array<Record<string, unknown>>, groups: string[]): { rows: Row[]; failed: number };
  formatTable(rows: Row[]): string;
  TARGETS: Array<{ name: string; margin: string }>;
}

// bench/ is plain JavaScript run by node (no declaration file): typed here by what the tests use.
const targetsModule = '../../../bench/targets.mjs';
const load = () => import(targetsModule) as Promise<TargetsModule>;

describe('bench targets', () => {
  it('passes a figure within its target and fails one past target and margin', async () => {
    const { checkTargets } = await load();
    const good = { name: 'ext.bundle_bytes', value: 1_100_000 };
    const bad = { name: 'ext.bundle_bytes', value: 1_200_000 };
    assert.equal(checkTargets([good], ['ext']).rows.find((r) => r.label.startsWith('ext.bundle_bytes'))?.pass, true);
    const { rows } = checkTargets([bad], ['ext']);
    assert.equal(rows.find((r) => r.label.startsWith('ext.bundle_bytes'))?.pass, false);
  });

  it('accepts a slow absolute figure when its same-run ratio is within the margin', async () => {
    const { checkTargets } = await load();
    const turn = { name: 'engine.turn_overhead', value: 7, p95: 40, ratio: 1.75, baseline: 4 };
    const median = checkTargets([turn], ['engine']).rows.find((r) => r.label === 'engine.turn_overhead median');
    assert.equal(median?.pass, true);
    const worse = checkTargets([{ ...turn, ratio: 2.5 }], ['engine']).rows.find((r) => r.label === 'engine.turn_overhead median');
    assert.equal(worse?.pass, false);
  });

  it('holds ui.thread_append to 4 ms, or to twice the plain line appended in the same run', async () => {
    const { checkTargets } = await load();
    const row = (value: number, baseline: number) =>
      checkTargets([{ name: 'ui.thread_append', value, baseline, median: value / 2 }], ['ui']).rows.find((r) => r.label === 'ui.thread_append p95');
    assert.equal(row(3.9, 2.4)?.pass, true, 'within 4 ms');
    assert.equal(row(7.1, 5.8)?.pass, true, 'a slow browser: 1.2x its own plain append');
    assert.equal(row(7.1, 2.5)?.pass, false, 'slow while a plain append was fast: the thread code');
  });

  it('fails a target whose figure a group that ran did not print, and skips groups that did not run', async () => {
    const { checkTargets } = await load();
    const { rows, failed } = checkTargets([], ['ext']);
    assert.ok(rows.length > 0 && rows.every((r) => r.label.startsWith('ext.') && r.shown === 'missing' && !r.pass));
    assert.equal(failed, rows.length);
  });

  it('reports a figure the group was told to skip as skipped, not missed', async () => {
    const { checkTargets, formatTable } = await load();
    const { rows, failed } = checkTargets([{ name: 'history.sidebar_open', skipped: 'HISTORY_SKIP_UI is set' }], ['history']);
    const row = rows.find((r) => r.label === 'history.sidebar_open');
    assert.equal(row?.pass, true);
    assert.match(formatTable(rows), /\| history\.sidebar_open \| skipped: HISTORY_SKIP_UI is set \|.*\| skipped \|/);
    assert.equal(failed, rows.filter((r) => !r.pass).length);
  });

  it('states a noise margin for every target and prints them in the table', async () => {
    const { TARGETS, checkTargets, formatTable } = await load();
    for (const t of TARGETS) assert.ok(t.margin.length > 0, `${t.name} states no margin`);
    const table = formatTable(checkTargets([{ name: 'ext.vsix_bytes', value: 4 * 1024 * 1024 }], ['ext']).rows);
    assert.match(table, /\| ext\.vsix_bytes \| 4\.00 MB \| ≤ 3 MB \| none: deterministic \| FAIL \|/);
  });
});
