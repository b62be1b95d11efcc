import * as assert from 'node:assert/strict';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { appendChore, serializeChore } from '../../../src/core/chores/choreSerialize';
import { choreTemplates } from '../../../src/core/chores/templates';
import type { ChoreDiagnostic } from '../../../src/core/chores/types';

const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
const errors = (d: ChoreDiagnostic[]) => d.filter((x) => x.severity === 'error');

describe('chores: chores.yaml definitions', () => {
  it('loads the documented example with defaults filled in', () => {
    const text = [
      'chores:',
      '  - id: nightly-changelog              # unique, [a-z0-9-]',
      '    name: Nightly changelog',
      '    trigger:',
      '      cron: "0 2 * * *"',
      '      timezone: Europe/Paris',
      '    prompt: |',
      "      Add an entry to CHANGELOG.md for today's merged commits.",
      '    actionSets: [files]',
      '    skills: [changelog]',
      '    budget: { maxIterations: 10, maxSeconds: 600, maxInputTokens: 200000, maxCostUsd: 1 }',
      '    successWhen: "status = \'done\'"',
      '    onFailure: escalate',
      '    concurrency: skip',
      '    drift: latest',
      '    escalate:',
      '      webhook: { url: "http://127.0.0.1:9000/hook" }',
      '',
    ].join('\n');
    const result = parseChoresFile(text);
    assert.deepEqual(result.diagnostics, []);
    assert.equal(result.chores.length, 1);
    const chore = result.chores[0];
    assert.deepEqual(chore.trigger, { kind: 'cron', cron: '0 2 * * *', timezone: 'Europe/Paris' });
    assert.deepEqual(chore.budget, { maxIterations: 10, maxSeconds: 600, maxInputTokens: 200000, maxCostUsd: 1 });
    assert.equal(chore.prompt, "Add an entry to CHANGELOG.md for today's merged commits.\n");
    assert.deepEqual(chore.escalate, { webhook: { url: 'http://127.0.0.1:9000/hook' } });
    assert.equal(chore.onFailure, 'escalate');
  });

  it('fills the documented defaults', () => {
    const result = parseChoresFile('chores:\n  - id: a\n    name: A\n    trigger: { files: "src/**/*.ts" }\n    prompt: p\n');
    assert.deepEqual(result.diagnostics, []);
    const a = result.chores[0];
    assert.deepEqual(a.budget, { maxIterations: 10, maxSeconds: 600, maxInputTokens: 1_000_000, maxCostUsd: 1 });
    assert.deepEqual(a.trigger, { kind: 'files', globs: ['src/**/*.ts'], debounceMs: 1500 });
    assert.equal(a.onFailure, 'silent'); // nowhere to escalate to
    assert.equal(a.concurrency, 'skip');
    assert.equal(a.drift, 'latest');
  });

  it('clamps each loop-policy value at its cap with a warning on that value', () => {
    const text =
      'chores:\n  - id: big\n    name: Big\n    trigger: { cron: "0 * * * *" }\n    prompt: p\n    budget:\n      maxIterations: 500\n      maxSeconds: 9999\n      maxInputTokens: 9000000\n      maxCostUsd: 75.5\n';
    const result = parseChoresFile(text);
    assert.deepEqual(result.chores[0].budget, { maxIterations: 100, maxSeconds: 3600, maxInputTokens: 5_000_000, maxCostUsd: 50 });
    const warnings = result.diagnostics.filter((d) => d.severity === 'warning');
    assert.equal(warnings.length, 4);
    assert.deepEqual(
      warnings.map((w) => w.line),
      [7, 8, 9, 10],
    );
    assert.deepEqual(
      warnings.map((w) => w.column),
      [22, 19, 23, 19],
    );
    assert.match(warnings[0].message, /maxIterations 500 is above the cap of 100/);
    assert.ok(warnings.every((w) => w.choreId === 'big'));
  });

  it('keeps values at or under the caps as written', () => {
    const text =
      'chores:\n  - id: edge\n    name: E\n    trigger: { cron: "0 * * * *" }\n    prompt: p\n    budget: { maxIterations: 100, maxSeconds: 3600, maxInputTokens: 5000000, maxCostUsd: 50 }\n';
    const result = parseChoresFile(text);
    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(result.chores[0].budget, { maxIterations: 100, maxSeconds: 3600, maxInputTokens: 5_000_000, maxCostUsd: 50 });
  });

  it('disables a bad chore with line-precise errors and loads the others', () => {
    const text = [
      '# team chores',
      'chores:',
      '  - id: good-one',
      '    name: Good',
      '    trigger: { cron: "0 2 * * *" }',
      '    prompt: ok',
      '  - id: typo',
      '    name: Typo',
      '    trigger: { cron: "0 2 * * *" }',
      '    prompt: p',
      '    maxIteration: 3',
      '    successWhen: "status = "',
      '  - id: missing-prompt',
      '    name: M',
      '    trigger: { task: { name: build, when: "exitCode !=" } }',
      '  - id: good-two',
      '    name: Good 2',
      '    trigger: { task: { name: build, when: "exitCode != 0" } }',
      '    prompt: fix',
      '',
    ].join('\n');
    const result = parseChoresFile(text);
    assert.deepEqual(
      result.chores.map((c) => c.id),
      ['good-one', 'good-two'],
    );
    assert.deepEqual(result.disabled, ['typo', 'missing-prompt']);
    const errs = errors(result.diagnostics);
    const unknown = errs.find((d) => d.message.includes('maxIteration'))!;
    assert.equal(unknown.line, lineOf(text, 'maxIteration:'));
    assert.equal(unknown.column, 5);
    assert.equal(unknown.endColumn, 5 + 'maxIteration'.length);
    assert.equal(unknown.choreId, 'typo');
    const success = errs.find((d) => d.message.startsWith('successWhen'))!;
    assert.equal(success.line, lineOf(text, 'successWhen'));
    assert.equal(success.column, 18);
    const when = errs.find((d) => d.message.includes('trigger.task.when'))!;
    assert.equal(when.line, lineOf(text, 'exitCode !="'));
    assert.equal(when.choreId, 'missing-prompt');
    const missing = errs.find((d) => d.message === 'prompt is required')!;
    assert.equal(missing.line, lineOf(text, 'id: missing-prompt'));
  });

  it('reports a YAML syntax error inside one chore without losing the others', () => {
    const text =
      'chores:\n  - id: first\n    name: F\n    trigger: { cron: "0 2 * * *" }\n    prompt: p\n  - id: broken\n    name: [unclosed\n    trigger: { cron: "0 2 * * *" }\n    prompt: p\n';
    const result = parseChoresFile(text);
    assert.deepEqual(
      result.chores.map((c) => c.id),
      ['first'],
    );
    const yamlError = result.diagnostics.find((d) => d.message.startsWith('YAML:'));
    assert.ok(yamlError, JSON.stringify(result.diagnostics));
    assert.ok(yamlError.line >= 7, `line ${yamlError.line}`);
  });

  it('rejects invalid cron, timezone, ids, duplicate ids and trigger mixes', () => {
    const text = [
      'chores:',
      '  - id: a',
      '    name: A',
      '    trigger: { cron: "61 * * * *" }',
      '    prompt: p',
      '  - id: b',
      '    name: B',
      '    trigger: { cron: "0 2 * * *", timezone: Mars/Olympus }',
      '    prompt: p',
      '  - id: Bad_Id',
      '    name: C',
      '    trigger: { cron: "0 2 * * *", files: ["x"] }',
      '    prompt: p',
      '  - id: ok',
      '    name: ok',
      '    trigger: { files: ["a"] }',
      '    prompt: p',
      '  - id: ok',
      '    name: dup',
      '    trigger: { files: ["a"] }',
      '    prompt: p',
    ].join('\n');
    const result = parseChoresFile(text);
    assert.deepEqual(
      result.chores.map((c) => c.name),
      ['ok'],
    );
    const messages = errors(result.diagnostics).map((d) => `${d.line}: ${d.message}`);
    assert.ok(
      messages.some((m) => m.startsWith('4: trigger.cron "61 * * * *" is not a valid cron pattern')),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => m.startsWith('8: unknown timezone "Mars/Olympus"')),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => m.startsWith('10: id must use only a-z')),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => m.startsWith('12: trigger has cron and files')),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => m.startsWith('18: duplicate chore id "ok"')),
      messages.join('\n'),
    );
  });

  it('refuses an unknown action set on its line (a typo would otherwise grant nothing, silently)', () => {
    const text = [
      'chores:',
      '  - id: typo',
      '    name: Typo',
      '    trigger: { cron: "0 2 * * *" }',
      '    prompt: p',
      '    actionSets:',
      '      - files',
      '      - comands',
      '  - id: fine',
      '    name: Fine',
      '    trigger: { cron: "0 2 * * *" }',
      '    prompt: p',
      '    actionSets: [read, commands, "mcp:github"]',
    ].join('\n');
    const result = parseChoresFile(text);
    assert.deepEqual(
      result.chores.map((c) => c.id),
      ['fine'],
      'the chore with the unknown set is disabled, the other loads',
    );
    const [error] = errors(result.diagnostics);
    assert.equal(error?.line, lineOf(text, '- comands'));
    assert.match(error?.message ?? '', /unknown action set "comands": use "files".*"commands"/);
  });

  it('refuses a Slack URL in the file; escalate without a channel of its own is allowed', () => {
    const text =
      'chores:\n  - id: a\n    name: A\n    trigger: { cron: "0 2 * * *" }\n    prompt: p\n    onFailure: escalate\n  - id: b\n    name: B\n    trigger: { cron: "0 2 * * *" }\n    prompt: p\n    escalate:\n      slack: { url: "https://hooks.slack.com/services/T/B/X" }\n';
    const result = parseChoresFile(text);
    assert.deepEqual(
      result.chores.map((c) => [c.id, c.onFailure, c.escalate]),
      [['a', 'escalate', undefined]],
    );
    const messages = errors(result.diagnostics).map((d) => `${d.line}: ${d.message}`);
    // onFailure: escalate with no channel of its own is valid: it uses the person's default (tasklane.chores.escalate).
    assert.ok(!messages.some((m) => m.startsWith('6:')), messages.join('\n'));
    assert.ok(
      messages.some((m) => m.startsWith('12: a Slack webhook URL carries a token')),
      messages.join('\n'),
    );
  });

  it('says what to write when the top-level list is missing, and accepts an empty file', () => {
    assert.deepEqual(parseChoresFile('').diagnostics, []);
    const result = parseChoresFile('tasks:\n  - id: a\n');
    assert.equal(errors(result.diagnostics).length, 1);
    assert.match(result.diagnostics[0].message, /top-level "chores:" list/);
  });
});

describe('chores: serializeChore / appendChore', () => {
  const spec = {
    id: 'weekly',
    name: 'Weekly',
    trigger: { cron: '*/5 * * * *', timezone: 'UTC' },
    prompt: 'Line one.\nLine two.',
    budget: { maxIterations: 5 },
    escalate: { webhook: { urlSecret: 'hook' } },
  };

  it('appends after the last chore and keeps comments and formatting byte for byte', () => {
    const original =
      '# Team chores, reviewed weekly\nchores:\n  # changelog\n  - id: a   # keep\n    name: "A"\n    trigger: {cron: "0 2 * * *"}\n    prompt: x\n\n# trailing comment\n';
    const out = appendChore(original, spec);
    assert.ok(out.startsWith(original.slice(0, original.indexOf('\n# trailing'))), out);
    assert.ok(out.endsWith('\n# trailing comment\n'));
    const result = parseChoresFile(out);
    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(
      result.chores.map((c) => c.id),
      ['a', 'weekly'],
    );
    const weekly = result.chores[1];
    assert.equal(weekly.prompt, 'Line one.\nLine two.');
    assert.deepEqual(weekly.trigger, { kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' });
    assert.deepEqual(weekly.escalate, { webhook: { urlSecret: 'hook' } });
  });

  it('matches the indentation of an unindented list and handles empty or missing lists', () => {
    for (const start of [
      '',
      '# only a comment\n',
      'chores:\n',
      'chores: []\n',
      'other: 1\n',
      'chores:\n- id: b\n  name: b\n  trigger: {cron: "* * * * *"}\n  prompt: p',
    ]) {
      const out = appendChore(start, spec);
      const result = parseChoresFile(out);
      assert.deepEqual(errors(result.diagnostics), [], `${JSON.stringify(start)} ->\n${out}`);
      assert.ok(
        result.chores.some((c) => c.id === 'weekly'),
        out,
      );
    }
  });

  it('refuses a duplicate id and an invalid spec with a message saying what to do', () => {
    const once = appendChore('', spec);
    assert.throws(() => appendChore(once, spec), /already exists; pick another id/);
    assert.throws(() => serializeChore({ ...spec, successWhen: 'status = ' }), /successWhen.*fix that field/);
  });
});

describe('chores: starter templates', () => {
  it('ships three templates, each valid under the schema and round-tripping through the file', () => {
    assert.equal(choreTemplates.length, 3);
    let text = '';
    for (const template of choreTemplates) text = appendChore(text, template.spec);
    const result = parseChoresFile(text);
    assert.deepEqual(result.diagnostics, []);
    const byId = new Map(result.chores.map((c) => [c.id, c]));
    assert.equal(byId.get('nightly-changelog')?.trigger.kind, 'cron');
    assert.deepEqual(byId.get('build-failure-fix')?.trigger, { kind: 'task', name: 'build', when: 'exitCode != 0' });
    assert.equal(byId.get('weekly-dependency-check')?.trigger.kind, 'cron');
    for (const c of result.chores) assert.ok(c.successWhen, `${c.id} has a successWhen`);
    // Each names the commands it runs, so it can run them unattended once enabled (and headless).
    for (const c of result.chores) assert.ok(c.commands?.length && c.actionSets.includes('commands'), `${c.id} declares its commands`);
    assert.deepEqual(byId.get('build-failure-fix')?.commands, ['npm run build', 'npm test']);
  });
});
