import * as assert from 'node:assert/strict';
import { classifyEdit, sensitiveReason } from '../../../src/core/approval/paths/sensitivePaths';
import { attack } from './attackTally';

const auto = { autoApproveEdits: true };

// Finding 6 of the December security review: files that run code or steer the agent, which an
// auto-approved edit could write. Every one must ask whatever autoApproveEdits says.
const ADDED: Record<string, string[]> = {
  'agent powers': [
    'AGENTS.md',
    'packages/app/AGENTS.md',
    'agents.md',
    'CLAUDE.md',
    '.agents/skills/evil/SKILL.md',
    '.claude/skills/x/SKILL.md',
    '.claude/settings.json',
    '.github/skills/x/SKILL.md',
    '.github/copilot-instructions.md',
    '.github/CODEOWNERS',
    '.tasklane/chores.yaml',
    '.tasklane/new-chore.yaml',
  ],
  'git hooks': [
    '.husky/pre-commit',
    '.husky/_/husky.sh',
    '.githooks/pre-push',
    '.git/hooks/pre-commit',
    '.git/config',
    '.pre-commit-config.yaml',
    '.gitattributes',
    '.gitmodules',
  ],
  'package managers': [
    '.npmrc',
    'packages/a/.npmrc',
    '.yarnrc',
    '.yarnrc.yml',
    '.yarn/releases/yarn-4.cjs',
    '.pnpmfile.cjs',
    'pnpm-workspace.yaml',
    'package-lock.json',
    'yarn.lock',
    'pnpm-lock.yaml',
    'node_modules/lodash/index.js',
    'packages/a/node_modules/x/package.json',
    'node_modules/.bin/tsc',
  ],
  'code-loading configs': [
    'eslint.config.mjs',
    'eslint.config.js',
    '.eslintrc.js',
    '.eslintrc.cjs',
    '.eslintrc.json',
    'prettier.config.js',
    '.prettierrc',
    '.prettierrc.cjs',
    'jest.config.js',
    'vite.config.ts',
    'vitest.config.mts',
    'webpack.config.cjs',
    'babel.config.js',
    '.babelrc',
    '.mocharc.js',
    '.devcontainer/devcontainer.json',
    '.devcontainer.json',
  ],
  'CI systems': [
    '.gitlab-ci.yml',
    '.circleci/config.yml',
    'azure-pipelines.yml',
    'azure-pipelines-release.yaml',
    'Jenkinsfile',
    '.travis.yml',
    'bitbucket-pipelines.yml',
    '.buildkite/pipeline.yml',
    '.github/actions/setup/action.yml',
    '.github/workflows/ci.yml',
  ],
  'build manifests': [
    'Makefile',
    'makefile',
    'GNUmakefile',
    'rules.mk',
    'justfile',
    'Taskfile.yml',
    'pyproject.toml',
    'setup.py',
    'setup.cfg',
    'conftest.py',
    'tox.ini',
    'noxfile.py',
    'Cargo.toml',
    'build.rs',
    'composer.json',
    'Gemfile',
    'Rakefile',
    'Dockerfile',
    'services/api/pyproject.toml',
  ],
};

// The spellings the review saw held (p2) must keep holding with the longer list.
const SPELLINGS = [
  '.VSCode/Settings.JSON',
  '.vscode\\tasks.json',
  './.vscode//launch.json',
  '.vscode./settings.json',
  '.vscode /settings.json',
  'a/../.vscode/tasks.json',
  '.GIT/config',
  '.git::$INDEX_ALLOCATION/config',
  'package.json.',
  'package.json::$DATA',
  'PACKAGE.JSON',
  'packages/x/package.json',
  '.env.local',
  '.envrc',
  '.GitHub/Workflows/ci.yml',
  '.TaskLane/chores.yaml',
  'MAKEFILE',
  'Agents.MD',
  '.Husky/pre-commit',
  '.NPMRC',
  'Jenkinsfile.',
];

// Ordinary files still auto-apply when the setting is on (asking for everything would train people to click through).
const ORDINARY = [
  'src/index.ts',
  'docs/agents-guide.md',
  'src/config.ts',
  'src/makefile-parser.ts',
  'README.md',
  'test/a.test.ts',
  'src/app.ts',
  'notes/husky.md',
];

describe('security: the sensitive list (files that run code, steer the agent or hold secrets)', () => {
  for (const [family, paths] of Object.entries(ADDED)) {
    it(`always asks for ${family}, even with autoApproveEdits on`, async () => {
      for (const p of paths) {
        await attack(`sensitive path (${family})`, () => {
          const result = classifyEdit(p, auto);
          assert.equal(result.decision, 'ask', `${p} would auto-apply`);
          assert.match(result.decision === 'ask' ? result.reason : '', /always needs approval/, p);
        });
      }
    });
  }

  it('still catches the spellings that held in the review', async () => {
    for (const p of SPELLINGS) {
      await attack('sensitive path spelling', () => assert.equal(classifyEdit(p, auto).decision, 'ask', p));
    }
  });

  it('leaves ordinary source files to the setting', () => {
    for (const p of ORDINARY) {
      assert.equal(sensitiveReason(p), undefined, p);
      assert.deepEqual(classifyEdit(p, auto), { decision: 'auto' }, p);
    }
  });
});
