import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localizedManifest, manifestSections, manifestSettings, rawManifest } from '../../support/manifest';

// The settings and commands as VS Code users expect them (docs/ARCHITECTURE.md, "The manifest").
const manifest = localizedManifest() as {
  activationEvents: string[];
  contributes: {
    commands: Array<{ command: string; title: string; category?: string; icon?: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
  };
};

/** Settings that hold a count (of days, minutes, seconds, tokens, actions, characters, retries). */
const COUNT = /(Days|Minutes|Seconds|Retries|Events|Chars|PerTask|PerTurn|PerHour|Tasks)$/;

describe('manifest: settings in titled sections', () => {
  const sections = manifestSections();
  const settings = manifestSettings();

  it('groups every setting in a titled section with an order, each setting with its own order', () => {
    assert.ok(sections.length >= 6, `only ${sections.length} sections`);
    for (const section of sections) {
      assert.ok(section.title, 'a section without a title');
      assert.equal(typeof section.order, 'number', `${section.title} has no order`);
      for (const [key, setting] of Object.entries(section.properties)) assert.equal(typeof setting.order, 'number', `${key} has no order`);
    }
    assert.equal(new Set(sections.map((s) => s.title)).size, sections.length, 'two sections share a title');
  });

  it('types counts as integers and describes every setting in Markdown', () => {
    for (const [key, setting] of Object.entries(settings)) {
      if (COUNT.test(key) && !/Usd/.test(key)) assert.equal(setting.type, 'integer', `${key} counts something: type it integer`);
      assert.ok(setting.markdownDescription, `${key} has no markdownDescription`);
      assert.equal(setting.description, undefined, `${key} has a plain description too`);
      if (setting.enum)
        assert.equal((setting.enumDescriptions ?? setting.markdownEnumDescriptions)?.length, setting.enum.length, `${key}: describe every enum value`);
    }
  });

  it('links only settings that exist, and says which settings a workspace cannot set', () => {
    let links = 0;
    for (const [key, setting] of Object.entries(settings)) {
      for (const [, target] of setting.markdownDescription!.matchAll(/#(tasklane\.[\w.]+)#/g)) {
        links += 1;
        assert.ok(settings[target!], `${key} links #${target}#, which is not a setting`);
      }
      // An application-scoped setting is read from user settings only (src/core/settings/userOnlySettings.ts).
      if (setting.scope === 'application')
        assert.match(setting.markdownDescription!, /User settings only/, `${key} must say it is read from user settings only`);
    }
    assert.ok(links >= 10, `only ${links} links between related settings`);
  });
});

describe('manifest: commands a person runs', () => {
  const palette = manifest.contributes.menus.commandPalette ?? [];
  const hidden = new Set(palette.filter((m) => m.when === 'false').map((m) => m.command));
  const titleBar = new Set(
    Object.entries(manifest.contributes.menus)
      .filter(([where]) => where.endsWith('/title'))
      .flatMap(([, items]) => items.map((m) => m.command)),
  );

  it('hides what is for tests or needs an argument', () => {
    for (const command of ['tasklane.getState', 'tasklane.openHistorySession']) assert.ok(hidden.has(command), `${command} shows in the palette`);
  });

  it('names every palette command with a verb phrase in the Tasklane category, with an icon where a title bar shows it', () => {
    const verbs =
      /^(Send|New|Show|Add|Approve|Reject|Continue|Revert|Cancel|Set|Select|Open|Run|Trust|Stop|Sign|Enable|Disable|Resume|Preview|Review|Search|Export|Archive|Retry|Dismiss|Refresh|Start|Forget|Don't)\b/;
    for (const command of manifest.contributes.commands) {
      assert.equal(command.category, 'Tasklane', `${command.command} is not in the Tasklane category`);
      if (!hidden.has(command.command)) assert.match(command.title, verbs, `"${command.title}" (${command.command}) is not a verb phrase`);
      if (titleBar.has(command.command)) assert.ok(command.icon, `${command.command} is in a title bar without an icon`);
    }
  });
});

describe('manifest: the oldest VS Code it runs in', () => {
  it('typechecks against the API of the release engines.vscode names, and the README says which', () => {
    const raw = rawManifest() as { engines: { vscode: string }; devDependencies: Record<string, string> };
    const floor = /^\^(\d+\.\d+)\.0$/.exec(raw.engines.vscode)?.[1];
    assert.ok(floor, `engines.vscode ${raw.engines.vscode} is not ^X.Y.0`);
    // vsce refuses a package whose @types/vscode is newer than engines; older would let newer API in unchecked.
    assert.equal(raw.devDependencies['@types/vscode'], `${floor}.0`);
    assert.match(fs.readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8'), new RegExp(`VS Code ${floor.replace('.', '\\.')} or later`));
  });
});

describe('manifest: activation only where Tasklane has work', () => {
  it('never activates on start-up in every window', () => {
    assert.ok(!manifest.activationEvents.includes('*'));
    assert.ok(!manifest.activationEvents.includes('onStartupFinished'), 'onStartupFinished loads Tasklane into every window');
    // Chores live in .tasklane/ and must fire on schedule after a reload; a repository's MCP servers are reviewed from .vscode/mcp.json.
    for (const event of ['workspaceContains:.tasklane/**', 'workspaceContains:.vscode/mcp.json', 'onUri'])
      assert.ok(manifest.activationEvents.includes(event), `${event} is missing`);
  });
});
