import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFile as readFileAction } from '../../../src/core/actions/readActions';
import type { ActionContext } from '../../../src/core/actions/types';
import { FsWorkspace } from '../../../src/core/approval/paths/fsWorkspace';
import { guardReads } from '../../../src/core/approval/paths/guardedWorkspace';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { compileGlob, compileSearchPattern } from '../../../src/core/approval/changes/textMatch';
import { compileExpression, evaluateSuccess, evaluateTaskCondition } from '../../../src/core/chores/expressions';
import { globMatch } from '../../../src/core/chores/eventTriggers';
import { globFilter } from '../../../src/core/approval/paths/globFilter';
import { runCli } from '../../../src/cli/main';
import { TurnStream } from '../../../src/core/engine/streaming';
import { redactCredentials } from '../../../src/core/security/redact';
import { silentLogger } from '../../../src/core/ports';
import { attack } from './attackTally';

// Each bomb must come back with an error instead of hanging the host. Bounded by the mocha
// timeout of each test (a hang fails the test), never by a timed assertion.
describe('security: evaluation that cannot freeze the extension host', function () {
  this.timeout(20_000);

  const JSONATA_BOMBS = [
    '($f := function($x){ $f($x + 1) }; $f(0))', // tail call: spins forever in microtasks without a time box
    '$count([1..10000000].($string($)))', // 15 s of work on the review's machine
    '($f := function($x){ $x > 0 ? 1 + $f($x - 1) : 0 }; $f(1000000))', // deep recursion
    '($loop := function($n){ $n = 0 ? 0 : $loop($n) }; $loop(1))',
    '[1..100000].[1..100000]', // a sequence of 10^10
    '$reduce([1..9999999], function($a, $b){ $a + $b })',
    '$sort([1..9999999], function($a, $b){ $a < $b })',
  ];

  // Review 2026-12b finding 9: one built-in step that builds its output from a constant, or a
  // string doubled in a recursion. Each must end AT the step/memory bound (the reason says so),
  // not after the time box once the host has been frozen for seconds.
  const STEP_BOMBS = [
    "$length($pad('', 50000000)) > 0",
    "($f := function($s, $n){ $n = 0 ? $s : $f($s & $s, $n - 1) }; $length($f('x', 40)) > 0)",
    "$length($join([1..100000].($pad('', 1000)))) > 0",
    "$length($replace($pad('', 100000, 'a'), 'a', $pad('', 100000, 'b'))) > 0",
  ];

  it('JSONata built-in steps end at the step and memory bound, not after freezing the host', async function () {
    // Each ends at a bound: the step and size bounds, or on a loaded machine jsonata's 1 s time
    // bound first. Either way it ends; only a freeze would fail (and then hold the event loop).
    this.timeout(30_000);
    for (const source of STEP_BOMBS) {
      await attack('JSONata bomb', async () => {
        const verdict = await evaluateSuccess(compileExpression(source), { status: 'done' });
        assert.equal(verdict.result, 'error', `${source} → ${JSON.stringify(verdict)}`);
        assert.match(verdict.reason, /bounded so they cannot freeze|timeout/i, source);
      });
    }
    // The review's exact probe: `$pad` checks the width before it builds anything, so this one
    // ends at the size bound on its first step, never at the time box (which it reached only
    // after building 50 million characters).
    const pad = await evaluateSuccess(compileExpression("$length($pad('', 50000000)) > 0"), { status: 'done' });
    assert.equal(pad.result, 'error');
    assert.match(pad.reason, /asked \$pad for 50000000 characters \(at most \d+\)/);
    // Ordinary uses of the bounded built-ins still work.
    assert.deepEqual(
      await evaluateSuccess(compileExpression("$pad('a', 3) = 'a  ' and $join(['a','b'], ',') = 'a,b' and $replace('abc', 'b', 'x') = 'axc'"), {}),
      { result: 'true' },
    );
  });

  // The residue of finding 9 past $pad: built-ins that parse a picture string take seconds on a
  // long one (a 900,000-character `$formatInteger` picture froze the host 2.5 s, `$formatNumber`
  // 4 s, before jsonata's 1 s time box could report). Each must end at the picture bound.
  const PICTURE_BOMBS = [
    "$length($formatNumber(1, $pad('', 900000, '0'))) > 0",
    "$length($formatInteger(1, $pad('', 900000, '0'))) > 0",
    "$length($fromMillis(0, $pad('', 900000, 'Y'))) > 0",
    "$toMillis('1970', $pad('', 900000, 'Y')) > 0",
    "$length($now($pad('', 900000, 'Y'))) > 0",
  ];

  it('JSONata built-ins that parse a picture refuse a long one before parsing it', async function () {
    this.timeout(30_000);
    for (const source of PICTURE_BOMBS) {
      await attack('JSONata bomb', async () => {
        const verdict = await evaluateSuccess(compileExpression(source), { status: 'done' });
        assert.equal(verdict.result, 'error', `${source} → ${JSON.stringify(verdict)}`);
        assert.match(verdict.reason, /a picture of 900000 characters \(at most \d+\)/, source);
      });
    }
    // Ordinary pictures still work.
    assert.deepEqual(
      await evaluateSuccess(
        compileExpression("$formatNumber(1234.5, '#,##0.00') = '1,234.50' and $formatInteger(7, '001') = '007' and $fromMillis(0, '[Y0001]') = '1970'"),
        {},
      ),
      { result: 'true' },
    );
  });

  it('JSONata successWhen bombs end with an error', async () => {
    for (const source of JSONATA_BOMBS) {
      await attack('JSONata bomb', async () => {
        const verdict = await evaluateSuccess(compileExpression(source), { status: 'done' });
        assert.equal(verdict.result, 'error', `${source} → ${JSON.stringify(verdict)}`);
      });
    }
  });

  it('a task trigger `when` bomb does not fire and does not hang', async () => {
    await attack('JSONata bomb', async () => {
      assert.equal(await evaluateTaskCondition(compileExpression('($f := function($x){ $f($x) }; $f(name))'), { name: 'build', exitCode: 1 }), false);
    });
  });

  it('regex literals in expressions run on RE2: a backtracking bomb is linear, lookaround is refused at load', async () => {
    await attack('JSONata bomb', async () => {
      const verdict = await evaluateSuccess(compileExpression('$contains(s, /(a+)+$/)'), { s: `${'a'.repeat(50_000)}!` });
      assert.notEqual(verdict.result, 'true');
    });
    await attack('JSONata bomb', () => assert.throws(() => compileExpression('$contains(s, /(?=a)a/)'), /RE2/));
    await attack('JSONata bomb', () => assert.throws(() => compileExpression(`(${'1+'.repeat(2000)}1)`), /characters long/));
    // Ordinary expressions still work, regexes included.
    assert.deepEqual(await evaluateSuccess(compileExpression("status = 'done' and $contains(msg, /ok/i)"), { status: 'done', msg: 'All OK' }), {
      result: 'true',
    });
  });

  const REGEX_BOMBS = ['(a+)+$', '(a|aa)+$', '(a|a?)+$', '(.*a){20}', '^(\\w+\\s?)*$', '(x+x+)+y', '([a-zA-Z]+)*$'];

  it('search_text regexes are linear-time: catastrophic patterns finish on long lines', async () => {
    const line = `${'a'.repeat(20_000)}!`;
    for (const pattern of REGEX_BOMBS) {
      await attack('regex bomb', () => {
        const matches = compileSearchPattern(pattern, true);
        assert.equal(typeof matches(line), 'boolean');
      });
    }
    for (const unsupported of ['(?=x)', '(a)\\1', '(?<!a)b']) {
      await attack('regex bomb', () => assert.throws(() => compileSearchPattern(unsupported, true), /RE2 syntax/));
    }
    await attack('regex bomb', () => assert.throws(() => compileSearchPattern('a'.repeat(5000), true), /characters long/));
    await attack('regex bomb', () => assert.equal(compileGlob(`${'**/'.repeat(200)}x`)(`${'a/'.repeat(2000)}y`), false));
  });

  it('chore trigger globs and the CLI include glob run on RE2 (review 2026-12b finding 12)', function () {
    // The review's probe: `**/` twelve times and `x`, against a path of depth 24. A backtracking
    // RegExp took seconds at depth 22 (and grows steeply); RE2 answers at once. A slow matcher
    // fails on this test's timeout.
    this.timeout(2_000);
    const glob = `${'**/'.repeat(12)}x`;
    const deep = `${'a/'.repeat(24)}y`;
    return Promise.all([
      attack('glob bomb', () => assert.equal(globFilter(glob)(deep), false)),
      attack('glob bomb', () => assert.equal(globMatch(glob)(deep), false)),
    ]);
  });

  it('search_text through the real workspace: a bomb over a 1 MB file returns', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-redos-')));
    try {
      fs.writeFileSync(path.join(root, 'big.txt'), `${'a'.repeat(40)}!\n`.repeat(20_000));
      const ws = guardReads(new FsWorkspace(root, nodeFs), root, nodeFs);
      await attack('regex bomb', async () => assert.deepEqual((await ws.searchText('(a+)+$', { isRegex: true })).hits, []));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('read_file loads at most its bound from a huge file', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-bigread-')));
    try {
      // Sparse: 6 GB on paper, almost nothing on disk; loading it whole would exhaust memory.
      const handle = fs.openSync(path.join(root, 'huge.log'), 'w');
      fs.writeSync(handle, 'first line\n');
      fs.ftruncateSync(handle, 6 * 1024 ** 3);
      fs.closeSync(handle);
      const workspace = guardReads(new FsWorkspace(root, nodeFs), root, nodeFs);
      const ctx = { sessionId: 's', workspace, logger: silentLogger } as unknown as ActionContext;
      await attack('unbounded read', async () => {
        // Past its first line the sparse file is NUL bytes: read_file says so rather than showing them.
        const text = (await readFileAction.run(readFileAction.input.parse({ path: 'huge.log', endLine: 1 }), ctx)) as string;
        assert.equal(text, 'huge.log is a binary file (it holds NUL bytes); its content is not shown.');
      });
      await attack('unbounded read', async () => {
        // A range streams the file, and its one 6 GB line is kept only up to a bound.
        const text = (await readFileAction.run(readFileAction.input.parse({ path: 'huge.log', startLine: 1, endLine: 1 }), ctx)) as string;
        assert.equal(text, 'first line');
        const second = (await readFileAction.run(readFileAction.input.parse({ path: 'huge.log', startLine: 2, endLine: 2 }), ctx)) as string;
        assert.match(second, /binary file/);
      });
      await attack('unbounded read', () => assert.rejects(workspace.readFile('huge.log'), /more than the \d+ that can be read/));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
  it('chores validate refuses the successWhen that chores run refuses (review 2026-12b finding 13)', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-validate-attack-'));
    try {
      fs.mkdirSync(path.join(root, '.tasklane'));
      const yaml = [
        'chores:',
        '  - id: check',
        '    name: Check',
        '    trigger: { cron: "0 2 * * *" }',
        '    prompt: Check things.',
        '    successWhen: "$contains(status, /(a)\\\\1/)"',
        '',
      ];
      fs.writeFileSync(path.join(root, '.tasklane/chores.yaml'), yaml.join('\n'));
      let out = '';
      const code = await runCli(
        ['chores', 'validate', '--workspace', root],
        { out: (t) => (out += t), err: (t) => (out += t), env: {}, cwd: root },
        { skillsDir: root },
      );
      await attack('expression validation', () => {
        assert.notEqual(code, 0, out);
        assert.match(out, /not supported|RE2/, out);
      });
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a reply that streams without end costs redaction work linear in its length (review 2026-12b finding 10)', async () => {
    // The probe: 400 characters per publish, 250 KB. Redacting the whole reply at each publish
    // costs ~8e7 characters here; a bounded window per publish costs a small multiple of it.
    let redacted = 0;
    const turn = new TurnStream(() => undefined, {
      intervalMs: 0,
      now: (() => {
        let now = 0;
        return () => (now += 1);
      })(),
      redact: (text) => {
        redacted += text.length;
        return redactCredentials(text);
      },
    });
    const chunk = `${'lorem ipsum dolor sit amet '.repeat(14)}tail\n`;
    let length = 0;
    while (length < 250_000) {
      turn.onDelta({ kind: 'text', text: chunk });
      length += chunk.length;
    }
    turn.close();
    await attack('stream redaction cost', () => assert.ok(redacted < 20 * length, `redacted ${redacted} characters for a reply of ${length}`));
  });
});
