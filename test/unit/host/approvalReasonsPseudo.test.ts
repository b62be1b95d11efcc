import { standIn } from '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { classifyResolvedEdit, SENSITIVE_PATTERNS, sensitiveWhy } from '../../../src/core/approval/paths/sensitivePaths';
import { askBecause, classifyCommand } from '../../../src/core/approval/commands/commandPolicy';
import type { CommandApproval } from '../../../src/core/approval/commands/commandApproval';
import { approvalReasonWords, SHELL_CONSTRUCT_IDS } from '../../../src/shared/approvalReasons';
import type { ApprovalReason } from '../../../src/shared/approvalReasons';
import { toEditApprovalView } from '../../../src/host/approvals/approvalViews';
import { toCommandApprovalView } from '../../../src/host/execution/commandHost';
import { englishLeft, pseudo } from '../../support/pseudoLocale';
import { commandApproval, pendingChangeSet } from '../support/approvalFixtures';

// Issue 42: the approval policy's own reasons, the last English a person read on an approval card.
// The core reports each as a code and values (src/shared/approvalReasons.ts words them); under a
// pseudo-locale every reason code, every family of sensitive files and every shell construct shows
// no English of Tasklane's own on the card, in a file's sensitive-path note or in the command card.
// A path and a pattern are values (the file's own name), taken out before looking.

const l10n = vscode.l10n as { t: (message: string, ...args: unknown[]) => string };
const english = l10n.t;

/** A workspace path of each family of sensitive files (every pattern of sensitivePaths.ts). */
const SENSITIVE_SAMPLES = [
  '.tasklane/chores.yaml',
  'AGENTS.md',
  '.agents/skill.md',
  '.claude/settings.json',
  '.github/skills/skill.md',
  '.github/copilot-instructions.md',
  '.cursor/rules.md',
  '.github/CODEOWNERS',
  '.vscode/tasks.json',
  'team.code-workspace',
  '.git/config',
  '.husky/pre-commit',
  '.pre-commit-config.yaml',
  '.gitattributes',
  '.devcontainer/devcontainer.json',
  'package.json',
  '.npmrc',
  '.yarnrc.yml',
  'yarn.lock',
  'node_modules/lib/index.js',
  'vite.config.ts',
  '.eslintrc.json',
  '.github/workflows/ci.yml',
  '.github/actions/setup/action.yml',
  '.gitlab-ci.yml',
  '.circleci/config.yml',
  'Makefile',
  '.env',
  '../１',
];

/** A command with each shell construct, and the other ways a command asks. */
const COMMANDS = [
  '１\n２',
  '$(１)',
  '`１`',
  '<(１)',
  '${１}',
  '$1',
  '%A%',
  '１$',
  '１ && ２',
  '１ || ２',
  '１; ２',
  '１ 2>２',
  '１ >> ２',
  '１ > ２',
  '１ < ２',
  '１ | ２',
  '１ & ２',
  '１\u0001',
];

/** What is left in English of `text` once the values (paths, patterns) are taken out. */
function left(where: string, text: string | undefined, values: readonly string[] = []): string[] {
  const rest = englishLeft(values.reduce((out, value) => out.split(value).join(' '), text ?? ''));
  return rest.length ? [`${where}: ${rest.join(' ')} in ${JSON.stringify(text)}`] : [];
}

const changeSet = pendingChangeSet;
const commandCard = (patch: Partial<CommandApproval>) => toCommandApprovalView(commandApproval(patch));

describe('localisation: the approval policy’s reasons under a pseudo-locale', () => {
  beforeEach(() => {
    standIn.reset();
    l10n.t = (message, ...args) => english(pseudo(message), ...args);
  });
  afterEach(() => {
    l10n.t = english;
  });

  it('an edit card’s reason and each file’s note, for every family of sensitive files and a path above the root', () => {
    const patterns = new Set<string>();
    const found = SENSITIVE_SAMPLES.flatMap((path) => {
      const why = sensitiveWhy(path);
      assert.ok(why, `${path} is sensitive`);
      const pattern = 'pattern' in why ? why.pattern : '';
      patterns.add(pattern);
      const view = toEditApprovalView(changeSet([path]), undefined, { autoApproveEdits: true });
      assert.ok(view.reason && view.files[0]?.sensitive, `${path} asks and has a note`);
      return [...left(`${path} reason`, view.reason, [pattern, path]), ...left(`${path} note`, view.files[0]?.sensitive, [pattern])];
    });
    assert.deepEqual(found, []);
    assert.deepEqual(
      [...SENSITIVE_PATTERNS].filter((p) => !patterns.has(p)),
      [],
      'every family of sensitive files is shown',
    );
  });

  it('an ordinary edit while auto-approve is off, and a chore run’s edit', () => {
    const views = [
      toEditApprovalView(changeSet(['１/２']), undefined, { autoApproveEdits: false }),
      toEditApprovalView(changeSet(['１/２']), '７', { autoApproveEdits: true }),
    ];
    assert.deepEqual(
      views.flatMap((view, i) => left(`${i}`, view.reason)),
      [],
    );
    assert.ok(views.every((view) => view.reason !== undefined));
  });

  it('a command card’s reason for each shell construct, an empty command, one not allowlisted and an MCP tool', () => {
    const verdicts = [...COMMANDS, '', '１'].map((command) => classifyCommand(command, ['１２']));
    const codes = verdicts.map((v) => (v.decision === 'ask' ? v.why : undefined));
    const constructs = codes.flatMap((c) => (c?.code === 'shellConstruct' ? [c.construct] : []));
    assert.deepEqual(
      [...SHELL_CONSTRUCT_IDS].filter((id) => !constructs.includes(id)),
      [],
      'every shell construct is shown',
    );
    const mcp = askBecause({ code: 'mcpToolNotAllowed', tool: '１/２' });
    const found = [...verdicts, mcp].flatMap((verdict, i) => {
      assert.equal(verdict.decision, 'ask');
      const card = commandCard({
        kind: i === verdicts.length ? 'mcp' : 'command',
        reason: verdict.decision === 'ask' ? verdict.reason : '',
        ...(verdict.decision === 'ask' ? { why: verdict.why } : {}),
      });
      return left(`${i}`, card.reason);
    });
    assert.deepEqual(found, []);
    // A row stored before the codes existed keeps the core's English, as it was written.
    assert.equal(commandCard({ reason: 'the command is empty' }).reason, 'the command is empty');
  });

  it('every reason code has words of its own (those the card does not show yet too: a hard link, an unfinished link scan)', () => {
    const resolved = classifyResolvedEdit({ aliases: ['１'], hardLinked: true, complete: false }, { autoApproveEdits: true });
    const fromResolved = resolved.decision === 'ask' ? resolved.reasons : [];
    // One example of each code; the type makes a new code fail to compile until it is listed here.
    const examples: { [C in ApprovalReason['code']]: Extract<ApprovalReason, { code: C }> } = {
      sensitivePath: { code: 'sensitivePath', path: '１', why: { rule: 'packageJson', pattern: '２' } },
      hardLink: fromResolved.find((r) => r.code === 'hardLink') as Extract<ApprovalReason, { code: 'hardLink' }>,
      linkScanIncomplete: fromResolved.find((r) => r.code === 'linkScanIncomplete') as Extract<ApprovalReason, { code: 'linkScanIncomplete' }>,
      editsNeedApproval: { code: 'editsNeedApproval' },
      choreRun: { code: 'choreRun' },
      commandEmpty: { code: 'commandEmpty' },
      shellConstruct: { code: 'shellConstruct', construct: 'pipe' },
      commandNotAllowed: { code: 'commandNotAllowed' },
      mcpToolNotAllowed: { code: 'mcpToolNotAllowed', tool: '１' },
    };
    assert.ok(examples.hardLink && examples.linkScanIncomplete, 'the resolved edit reports both codes');
    const words = Object.values(examples).map((reason) => approvalReasonWords(reason, vscode.l10n));
    assert.deepEqual(
      words.flatMap((text, i) => left(`${i}`, text)),
      [],
    );
    assert.equal(new Set(words).size, words.length, 'each code says something different');
  });
});
