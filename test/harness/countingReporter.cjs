'use strict';
// Mocha reporter for the unit and UI tiers: mocha's spec output on the console, plus a JSON summary
// (passed, failed, per-test titles, failures, each file's time with its hooks) written to
// TASKLANE_REPORT_FILE for runAll to count.
const fs = require('node:fs');
const path = require('node:path');
const { reporters, Runner } = require('mocha/lib/mocha.cjs');

const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Runner.constants;

class CountingReporter extends reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const tests = [];
    const failures = [];
    const started = Date.now();
    // A file's time: from its first top-level suite's start to its last one's end, hooks included
    // (a workbench window, a seeded store), which the per-test durations leave out.
    const fileMs = new Map();
    const suiteStarted = new Map();
    const topLevel = (suite) => suite.file && suite.parent?.root;
    runner.on(EVENT_SUITE_BEGIN, (suite) => topLevel(suite) && suiteStarted.set(suite, Date.now()));
    runner.on(EVENT_SUITE_END, (suite) => {
      if (!topLevel(suite) || !suiteStarted.has(suite)) return;
      const file = path.relative(process.cwd(), suite.file);
      fileMs.set(file, (fileMs.get(file) ?? 0) + Date.now() - suiteStarted.get(suite));
    });
    const record = (test, state, error) => {
      tests.push({ title: test.title, fullTitle: test.fullTitle(), state, durationMs: test.duration ?? 0 });
      if (error) failures.push({ title: test.title, fullTitle: test.fullTitle(), message: String(error.message ?? error), stack: String(error.stack ?? '') });
    };
    runner.on(EVENT_TEST_PASS, (test) => record(test, 'passed'));
    runner.on(EVENT_TEST_PENDING, (test) => record(test, 'pending'));
    // Hook failures arrive here too; they count as failures, not silently skipped tests.
    runner.on(EVENT_TEST_FAIL, (test, error) => record(test, 'failed', error));
    runner.once(EVENT_RUN_END, () => {
      const file = process.env.TASKLANE_REPORT_FILE;
      if (!file) return;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const summary = {
        passed: tests.filter((t) => t.state === 'passed').length,
        failed: failures.length,
        pending: tests.filter((t) => t.state === 'pending').length,
        durationMs: Date.now() - started,
        files: [...fileMs].map(([file, ms]) => ({ file, ms })).sort((a, b) => b.ms - a.ms),
        tests,
        failures,
      };
      fs.writeFileSync(file, JSON.stringify(summary, null, 2));
    });
  }
}

module.exports = CountingReporter;
