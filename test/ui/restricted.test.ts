import * as assert from 'node:assert/strict';
import { openTasklaneView, screenshotSidebar, startUiSession, tasklaneFrame } from './support/workbench';
import type { UiSession } from './support/workbench';

// Restricted Mode as a person sees it: an untrusted folder, and the sidebar saying what Tasklane
// cannot do there and how to trust the folder.
describe('ui: Restricted Mode in the sidebar', function () {
  let ui: UiSession | undefined;

  before(async function () {
    // A workbench of its own: Workspace Trust is decided when a workbench starts.
    ui = await startUiSession({ name: 'ui-restricted', workspaceTrust: true });
  });

  after(async function () {
    await ui?.stop();
  });

  it('says the agent can only chat, and links to Manage Workspace Trust', async function () {
    assert.ok(ui);
    await openTasklaneView(ui.page);
    const frame = await tasklaneFrame(ui.page);
    const notice = frame.locator('#banner .notice.restricted');
    await notice.waitFor({ timeout: 20_000 });
    assert.match((await notice.textContent()) ?? '', /Restricted Mode: Tasklane can chat but cannot edit files, run commands or run chores/);
    await screenshotSidebar(ui.page, 'ui-restricted-banner');

    await notice.locator('.trust-link').click();
    // VS Code's own trust editor opens: the link is wired to workbench.trust.manage.
    await ui.page.locator('.workspace-trust-editor, .editor-instance .workspace-trust-title').first().waitFor({ timeout: 15_000 });
  });
});
