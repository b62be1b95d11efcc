import * as assert from 'node:assert/strict';
import { patchFiles, protectedPathProblem } from '../../../src/cli/patchRules';
import { sensitiveReason } from '../../../src/core/approval/paths/sensitivePaths';
import { attack } from './attackTally';

// Review 2026-12c finding 6: the draft pull request's protected paths were a second, shorter,
// case-sensitive list. The probe's nine paths, each sensitive to the host, through the real
// `patchFiles` and `protectedPathProblem`: each is refused unless the chore declares it.
const PROBE_PATHS = [
  '.vscode/tasks.json',
  '.vscode/mcp.json',
  '.Agents/skills/x/SKILL.md',
  '.devcontainer/devcontainer.json',
  '.vscode/settings.json',
  '.CLAUDE/settings.json',
  '.husky/pre-commit',
  '.gitmodules',
  '.npmrc',
];

const diffOf = (file: string) => `--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+x\n`;

describe('security: a draft pull request refuses every path the host treats as sensitive (review 2026-12c finding 6)', () => {
  for (const file of PROBE_PATHS) {
    it(`refuses ${file}`, async () => {
      await attack('draft PR protected path', () => {
        assert.ok(sensitiveReason(file), `the host does not flag ${file}`);
        const [parsed] = patchFiles(diffOf(file));
        assert.match(protectedPathProblem(parsed!.path) ?? 'ALLOWED', /is protected: /);
        assert.equal(protectedPathProblem(parsed!.path, [file]), undefined, 'a declared path is allowed');
      });
    });
  }

  it('the CLI had paths the host did not: both sides now flag them', () => {
    for (const file of [
      'AGENT.md',
      '.cursorrules',
      '.github/chatmodes/x.md',
      '.github/agents/x.md',
      '.cursor/rules/x.mdc',
      '.continue/config.yaml',
      '.kiro/steering/x.md',
    ])
      assert.ok(sensitiveReason(file) && protectedPathProblem(file), file);
  });
});
