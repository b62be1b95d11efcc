import * as assert from 'node:assert/strict';
import { classifyEdit, classifyEdits, normaliseForMatching, sensitiveReason } from '../../../src/core/approval/paths/sensitivePaths';

const ask = { autoApproveEdits: false };
const auto = { autoApproveEdits: true };

describe('approval: sensitive paths and the edit policy', () => {
  describe('normaliseForMatching', () => {
    it('folds separators, ./, duplicate slashes, case and Windows trailing dots and spaces', () => {
      assert.deepEqual(normaliseForMatching('.\\Src//Nested/./A.ts'), ['src', 'nested', 'a.ts']);
      assert.deepEqual(normaliseForMatching('package.json. . '), ['package.json']);
      assert.deepEqual(normaliseForMatching('.vscode./tasks.json'), ['.vscode', 'tasks.json']);
      assert.deepEqual(normaliseForMatching('src/../.git/config'), ['.git', 'config']);
    });

    it('reports a climb above the root as undefined', () => {
      assert.equal(normaliseForMatching('../x'), undefined);
      assert.equal(normaliseForMatching('a/../../x'), undefined);
    });
  });

  // Every pattern of docs/DESIGN.md §6, in the plain spelling and in variants that must still match.
  const sensitive: Record<string, string[]> = {
    '.vscode/*.json': [
      '.vscode/settings.json',
      '.vscode/tasks.json',
      '.VSCode/Launch.JSON',
      '.vscode\\tasks.json',
      './/.vscode//extensions.json',
      '.vscode/tasks.json.',
      'sub/.vscode/settings.json',
    ],
    '.git/**': ['.git/config', '.git/hooks/pre-commit', '.GIT/HOOKS/post-checkout', '.git', '.git./config', 'vendor/lib/.git/config'],
    '.github/workflows/**': ['.github/workflows/ci.yml', '.GitHub/Workflows/release.yaml', '.github\\workflows\\x.yml', '.github/workflows/sub/x.yml'],
    '.env*': ['.env', '.env.local', '.ENV.production', 'config/.env', '.envrc', '.env '],
    '*.code-workspace': ['project.code-workspace', 'ws/Team.CODE-WORKSPACE'],
    'package.json': ['package.json', 'PACKAGE.JSON', 'packages/a/package.json', './package.json', 'package.json::$DATA', 'package.json. '],
    '.tasklane/**': ['.tasklane/chores.yaml', '.Tasklane/skills/x/SKILL.md', '.tasklane'],
  };

  for (const [pattern, paths] of Object.entries(sensitive)) {
    it(`always asks for ${pattern}, even with auto-approve on`, () => {
      for (const p of paths) {
        const result = classifyEdit(p, auto);
        assert.equal(result.decision, 'ask', p);
        assert.ok(result.decision === 'ask' && result.reason.includes(`(${pattern})`), `${p}: ${JSON.stringify(result)}`);
        assert.ok(result.decision === 'ask' && result.reason.startsWith(`${p} always needs approval`));
      }
    });
  }

  it('does not flag look-alikes', () => {
    for (const p of [
      'src/vscode/settings.json',
      '.vscode/readme.md',
      '.gitignore',
      '.github/ISSUE_TEMPLATE/bug.md',
      'github/workflows/x.yml',
      'src/env.ts',
      'docs/environment.md',
      'package.json5',
      'my-package.json',
      'tasklane/notes.md',
      'x.code-workspace.md',
    ]) {
      assert.equal(sensitiveReason(p), undefined, p);
      assert.deepEqual(classifyEdit(p, auto), { decision: 'auto' }, p);
    }
  });

  it('asks for ordinary edits unless auto-approve is on', () => {
    const result = classifyEdit('src/a.ts', ask);
    assert.equal(result.decision, 'ask');
    assert.match(result.decision === 'ask' ? result.reason : '', /autoApproveEdits is off/);
    assert.deepEqual(classifyEdit('src/a.ts', auto), { decision: 'auto' });
  });

  it('asks when a relative path climbs above the root', () => {
    assert.equal(classifyEdit('../outside.ts', auto).decision, 'ask');
  });

  it('classifies several paths by the strictest, so a rename into .vscode asks', () => {
    assert.deepEqual(classifyEdits(['src/a.json', 'src/b.json'], auto), { decision: 'auto' });
    const rename = classifyEdits(['src/a.json', '.vscode/tasks.json'], auto);
    assert.equal(rename.decision, 'ask');
    assert.match(rename.decision === 'ask' ? rename.reason : '', /\.vscode\/tasks\.json always needs approval/);
  });

  it('follows the glob literally: .env* also covers .environment files', () => {
    assert.equal(classifyEdit('docs/.environment.md', auto).decision, 'ask');
  });
});
