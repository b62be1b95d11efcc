import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { ChoreRunner } from '../../../src/core/chores/choreRunner';
import type { ChoreRunnerOptions } from '../../../src/core/chores/choreRunner';
import { compileExpression } from '../../../src/core/chores/expressions';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { MemoryLogger } from '../../fakes/memoryLogger';

// Review 2026-12b finding 13: `chores validate`, the chores.yaml diagnostics and the runner must
// accept and refuse the same expressions. One table, three consumers.
const TABLE: Array<{ expression: string; ok: boolean }> = [
  { expression: "status = 'done'", ok: true },
  { expression: '$contains(msg, /ok/i) and count > 0', ok: true },
  { expression: 'status = ', ok: false },
  { expression: '$contains(status, /(a)\\1/)', ok: false }, // the review's probe: a backreference RE2 refuses
  { expression: '$contains(status, /(?=a)a/)', ok: false }, // lookaround
  { expression: `(${'1+'.repeat(1100)}1) > 0`, ok: false }, // over the length cap
];

function choresYaml(expression: string): string {
  return [
    'chores:',
    '  - id: check',
    '    name: Check',
    '    trigger: { cron: "0 2 * * *" }',
    '    prompt: Check things.',
    `    successWhen: ${JSON.stringify(expression)}`,
    '',
  ].join('\n');
}

describe('chores: one JSONata validator for validate, the diagnostics and the runner', () => {
  for (const { expression, ok } of TABLE) {
    it(`${ok ? 'accepts' : 'refuses'} ${expression.slice(0, 40)}`, async () => {
      // 1. the diagnostics chores.yaml gets in the editor
      const loaded = parseChoresFile(choresYaml(expression));
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
      assert.equal(errors.length === 0, ok, JSON.stringify(errors));

      // 2. `tasklane chores validate`
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-validate-'));
      try {
        fs.mkdirSync(path.join(dir, '.tasklane'));
        fs.writeFileSync(path.join(dir, '.tasklane/chores.yaml'), choresYaml(expression));
        let err = '';
        const code = await runCli(
          ['chores', 'validate', '--workspace', dir],
          { out: () => undefined, err: (t) => (err += t), env: {}, cwd: dir },
          { skillsDir: dir },
        );
        assert.equal(code, ok ? 0 : 2, err);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }

      // 3. the runner (what `chores run` and the VS Code runner compile)
      let compiles = true;
      try {
        compileExpression(expression);
      } catch {
        compiles = false;
      }
      assert.equal(compiles, ok);
      const logger = new MemoryLogger();
      const runner = new ChoreRunner({ logger } as unknown as ChoreRunnerOptions);
      const chore = { id: 'check', successWhen: expression } as unknown as ChoreDefinition;
      const other = { id: 'other' } as unknown as ChoreDefinition;
      // One bad expression never throws for the whole list: the bad chore is left out, the others load.
      runner.setChores([chore, other]);
      assert.equal(runner.chore('check') !== undefined, ok);
      assert.ok(runner.chore('other'));
    });
  }
});
