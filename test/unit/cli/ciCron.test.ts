import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyOutputs } from '../../../src/cli/applyOutputs';
import { runOnCi } from '../../../src/cli/ciRun';
import { GithubApi } from '../../../src/cli/githubApi';
import { readGithubEvent } from '../../../src/cli/eventFile';
import { unifiedDiff } from '../../../src/cli/patch';
import type { CliRunResult } from '../../../src/cli/runChore';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { startFakeGithub } from '../../fakes/githubApi';
import { webhookExample, writeEvent } from '../../support/webhookExamples';

const repo = 'Codertocat/Hello-World';

describe('cli: a cron chore on CI proposes outputs too', () => {
  it('is told the outputs it may propose, and its draft pull request is opened by the apply step', async () => {
    const [chore] = parseChoresFile(
      'chores:\n  - id: changelog\n    name: Changelog\n    trigger: { cron: "0 2 * * *" }\n    prompt: Update the changelog.\n    outputs: { pullRequest: {} }\n',
    ).chores;
    let prompt = '';
    const run = async (narrowed: ChoreDefinition) => {
      prompt = narrowed.prompt;
      const result: CliRunResult = {
        runId: 'run-1',
        choreId: 'changelog',
        status: 'succeeded',
        reason: null,
        usage: { iterations: 1, elapsedMs: 1, inputTokens: 10, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 },
        steps: [],
        changedFiles: ['CHANGELOG.md'],
      };
      const patch = unifiedDiff([{ path: 'CHANGELOG.md', before: '# Changelog\n', after: '# Changelog\n\n- a change\n' }]);
      return { result, patch, output: { pullRequest: { title: 'Changelog for today', body: 'One entry.' } }, trace: [] };
    };
    const { manifest, patch } = await runOnCi({ chore, definitionHash: 'e'.repeat(64), eventFile: undefined, env: {}, now: () => new Date(), run });
    assert.match(prompt, /^Update the changelog\.\n\nYour results are written to GitHub by a separate step/);
    assert.match(prompt, /"pullRequest": \{"title": "…", "body": "…"\}/);
    assert.deepEqual(manifest.outputs.pullRequest, { title: 'Changelog for today', body: 'One entry.' });

    const github = await startFakeGithub({ repo, files: { 'CHANGELOG.md': '# Changelog\n' } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-cron-'));
    try {
      // GitHub's schedule payload names the cron; the repository object is a real one.
      const schedule = { schedule: '0 2 * * *', repository: (webhookExample('issues') as { repository: unknown }).repository };
      const event = readGithubEvent(writeEvent(dir, 'schedule', schedule), 'schedule');
      const api = new GithubApi({ baseUrl: github.baseUrl, repo, token: 'write-token' });
      const report = await applyOutputs({ manifest, patch, chore, committedHash: 'e'.repeat(64), event, api });
      assert.deepEqual(report.refused, []);
      assert.equal(github.pulls.length, 1);
      assert.equal(github.pulls[0].draft, true);
      const commit = github.commits.get(github.refs.get(`heads/${github.pulls[0].head}`)!)!;
      assert.equal(commit.files.get('CHANGELOG.md'), '# Changelog\n\n- a change\n');
    } finally {
      await github.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
