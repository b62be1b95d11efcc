import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import {
  activateTasklane,
  modelRequests,
  quiesce,
  renderedReport,
  resetModel,
  scriptModel,
  until,
  useScriptedModel,
  writeChoresFile,
} from './support/tasklane';
import { asPerson } from './support/asPerson';

/** In the chore's prompt: its requests carry it, and its answers are routed by it. */
const PROMPT = 'Fix the typo in README.md, then say so.';
/** The prompt of the chore whose run parks at its budget (one model call). */
const CAPPED = 'Read README.md, then report.';

// Approval away from the keyboard, in a real extension host: a chore run parks on its edit
// proposal, its webhook escalation carries the approval link, the link (through
// `tasklane.openApprovalLink`, the same handler the URI handler calls) opens that proposal's diff,
// and approving resumes the parked run to success with no model call while it waited.

interface ChoreState {
  id: string;
  enabled: boolean;
  consent?: 'needed' | 'given';
  review?: { definitionHash: string };
  runs: Array<{ id: string; status: string; reason?: string }>;
}
interface State {
  chores: ChoreState[];
  tasks: Array<{ id: string; source: string; waitingForApproval?: string }>;
}
interface Notice {
  status: string;
  runId: string;
  reason: string;
  approval?: { id: string; summary: string; link: string };
  pause?: { message: string; link: string };
  runLink?: string;
}

const root = () => vscode.workspace.workspaceFolders![0].uri;
const readme = () => vscode.Uri.joinPath(root(), 'README.md');
const read = async (uri: vscode.Uri) => new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
const state = async () => (await vscode.commands.executeCommand('tasklane.getState')) as State;
const chore = (s: State, id = 'reviewed') => s.chores.find((c) => c.id === id);

describe('host: chore review links', function () {
  this.timeout(90_000);
  let receiver: http.Server;
  const notices: Notice[] = [];
  let noticed: (notice: Notice) => void = () => undefined;
  let original = '';

  before(async () => {
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        response.end('ok');
        const notice = JSON.parse(body) as Notice;
        notices.push(notice);
        noticed(notice);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    await activateTasklane();
    await quiesce();
    await resetModel();
    await useScriptedModel();
    original = await read(readme());
    const written = await writeChoresFile<State>(
      [
        'chores:',
        '  - id: reviewed',
        '    name: Reviewed fix',
        '    trigger: { cron: "0 3 * * *" }',
        `    prompt: ${PROMPT}`,
        '    actionSets: [files]',
        '    budget: { maxSeconds: 600 }',
        `    escalate: { webhook: { url: "http://127.0.0.1:${port}/hook" } }`,
        '  - id: capped',
        '    name: Capped reader',
        '    trigger: { cron: "0 4 * * *" }',
        `    prompt: ${CAPPED}`,
        '    budget: { maxIterations: 1, maxSeconds: 600 }',
        `    escalate: { webhook: { url: "http://127.0.0.1:${port}/hook" } }`,
      ].join('\n') + '\n',
      (s) => Boolean(chore(s) && chore(s, 'capped')),
    );
    for (const id of ['reviewed', 'capped']) {
      const loaded = chore(written, id)!;
      if (loaded.consent === 'needed' && loaded.review)
        await asPerson(() => vscode.commands.executeCommand('tasklane.enableChore', id, loaded.review!.definitionHash), 'Enable');
      await until(`the chore ${id} to be enabled`, async () => chore(await state(), id)?.enabled);
    }
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.writeFile(readme(), new TextEncoder().encode(original));
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml')).then(undefined, () => undefined);
    await quiesce();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('the escalation link opens the right diff; approving resumes the parked run to success', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await scriptModel(PROMPT, [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'README.md', content: 'fixed by a chore\n' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'typo fixed', output: {} } }] },
    ]);
    const notice = new Promise<Notice>((resolve) => (noticed = resolve));
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'reviewed');
    const sent = await notice;
    const waiting = (await state()).tasks.find((t) => t.source === 'chore:reviewed' && t.waitingForApproval);
    assert.ok(waiting?.waitingForApproval, 'the chore task waits for its proposal');
    const approvalId = waiting.waitingForApproval;
    assert.equal(sent.status, 'awaiting_review');
    assert.equal(sent.approval?.id, approvalId);
    assert.match(sent.approval?.summary ?? '', /README\.md/);
    assert.ok(sent.approval?.link.includes(encodeURIComponent(approvalId)) || sent.approval?.link.includes(approvalId), sent.approval?.link);
    const run = chore(await state())!.runs[0];
    assert.equal(run.status, 'running');
    assert.equal(sent.runId, run.id);
    const callsWhileParked = (await modelRequests(PROMPT)).length;

    // The run link opens that run's trace, read-only; a run of another workspace is refused.
    assert.ok(sent.runLink?.includes(encodeURIComponent(run.id)) || sent.runLink?.includes(run.id), sent.runLink);
    const trace = await vscode.commands.executeCommand('tasklane.openRunLink', sent.runLink);
    assert.deepEqual(trace, { opened: 'trace', id: run.id });
    const shown = await renderedReport('tasklane-run');
    assert.equal(shown?.uri.scheme, 'tasklane-run');
    assert.match(shown?.getText() ?? '', new RegExp(`^# Run ${run.id} of .*\\(\`reviewed\`\\)\n\n- \\*\\*Status:\\*\\* running`));
    const elsewhere = await vscode.commands.executeCommand(
      'tasklane.openRunLink',
      sent.runLink!.replace(encodeURIComponent(run.id), 'run-of-another-workspace').replace(run.id, 'run-of-another-workspace'),
    );
    assert.deepEqual(elsewhere, {
      opened: false,
      reason: 'there is no chore run run-of-another-workspace in this workspace; the link may come from another workspace or window.',
    });

    const opened = await vscode.commands.executeCommand('tasklane.openApprovalLink', sent.approval!.link);
    assert.deepEqual(opened, { opened: 'diff', id: approvalId });
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, `active tab: ${tab?.label}`);
    assert.equal(tab.input.original.authority, approvalId, `the diff of ${approvalId}: ${tab.input.original.toString()}`);
    assert.equal(tab.input.modified.toString(), `tasklane-proposed://${approvalId}/README.md`);
    assert.match(tab.label, /README\.md/);

    const unknown = await vscode.commands.executeCommand(
      'tasklane.openApprovalLink',
      sent.approval!.link.replace(encodeURIComponent(approvalId), 'no-such-approval').replace(approvalId, 'no-such-approval'),
    );
    assert.deepEqual(unknown, {
      opened: false,
      reason: 'there is no approval no-such-approval in this workspace; it may belong to another workspace or window, or have been removed.',
    });
    assert.equal((await modelRequests(PROMPT)).length, callsWhileParked, 'no model call while the run waited');

    await asPerson(() => vscode.commands.executeCommand('tasklane.approve', approvalId), 'Approve');
    const ended = await until('the parked run to end', async () => chore(await state())?.runs.find((r) => r.id === run.id && r.status !== 'running'));
    assert.equal(ended.status, 'succeeded', ended.reason);
    assert.equal(await read(readme()), 'fixed by a chore\n', 'the approved edit was applied');
    assert.equal((await modelRequests(PROMPT)).length, callsWhileParked + 1, 'one model call after the decision: the task_end turn');
    assert.equal(notices.length, 1, 'one notice for the parked run');

    const again = (await vscode.commands.executeCommand('tasklane.openApprovalLink', sent.approval!.link)) as { opened: boolean; reason?: string };
    assert.equal(again.opened, false);
    assert.match(again.reason ?? '', /already decided \((approved|applied)\)/);
  });

  it('a run parked at its budget tells its channel; the resume link asks, and the yes resumes it to success', async () => {
    await scriptModel(CAPPED, [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'read it', output: {} } }] },
    ]);
    const before = notices.length;
    const notice = new Promise<Notice>((resolve) => (noticed = resolve));
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'capped');
    const sent = await notice;
    assert.equal(sent.status, 'paused_at_budget');
    assert.match(sent.reason, /^paused at budget: .*iterations/);
    const run = chore(await state(), 'capped')!.runs[0];
    assert.equal(run.status, 'running', 'parked, not ended');
    assert.equal(sent.runId, run.id);
    assert.ok(sent.runLink?.includes(run.id), sent.runLink);
    // In code-server the link is the server's callback form, whose path is encoded in its query.
    const resumeLink = decodeURIComponent(sent.pause?.link ?? '');
    assert.ok(resumeLink.includes('/resume') && resumeLink.includes(run.id), sent.pause?.link);
    assert.equal((await modelRequests(CAPPED)).length, 1, 'one model call, then the cap');

    // The link (pasted, as the URI handler would hand it) asks first; the yes resumes the same run.
    const resumed = await asPerson(() => vscode.commands.executeCommand('tasklane.openApprovalLink', sent.pause!.link), 'Resume');
    assert.deepEqual(resumed, { resumed: true, id: run.id });
    const ended = await until('the resumed run to end', async () =>
      chore(await state(), 'capped')?.runs.find((r) => r.id === run.id && r.status !== 'running'),
    );
    assert.equal(ended.status, 'succeeded', ended.reason);
    assert.equal((await modelRequests(CAPPED)).length, 2);
    assert.equal(notices.length, before + 1, 'one notice for the pause, none for the success');

    const again = (await vscode.commands.executeCommand('tasklane.openApprovalLink', sent.pause!.link)) as { resumed: boolean; reason?: string };
    assert.equal(again.resumed, false);
    assert.match(again.reason ?? '', /is not paused at budget any more \(succeeded\)/);
  });

  it('Preview Chore shows the next fires and a dry run without a model call', async () => {
    const before = (await modelRequests(PROMPT)).length;
    const preview = (await vscode.commands.executeCommand('tasklane.previewChore', 'reviewed')) as {
      nextFires: Array<{ utc: string }>;
      dryRun: { prompt: string; cause: string; actionSets: string[] };
    };
    assert.equal(preview.nextFires.length, 5);
    assert.ok(
      preview.nextFires.every((f) => /T03:00:00\.000Z$/.test(f.utc)),
      'no time zone: the machine zone, UTC here',
    );
    assert.equal(preview.dryRun.cause, 'cron');
    assert.ok(preview.dryRun.prompt.startsWith(`${PROMPT}\n\nTrigger: scheduled for `), preview.dryRun.prompt);
    assert.deepEqual(preview.dryRun.actionSets, ['files']);
    const shown = await renderedReport('tasklane-chore-preview');
    assert.equal(shown?.languageId, 'markdown');
    assert.ok(shown?.getText().includes(preview.dryRun.prompt), 'the document shows the prompt');
    assert.equal((await modelRequests(PROMPT)).length, before, 'no model call');
  });
});
