import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { localizedManifest, manifestStrings, nlsKey, rawManifest } from '../../support/manifest';
import { pseudo } from '../../support/pseudoLocale';

// Localisation of the manifest (docs/ARCHITECTURE.md, "Words and languages"): every string a
// person reads in VS Code's own UI (commands, views, settings, the walkthrough, the chat
// participant, the tools' names for people) comes from package.nls.json, so a translation is a
// file next to it (package.nls.<locale>.json). The tools' `modelDescription`s stay English in the
// manifest on purpose: they are the model's instructions, not the person's.

type Node = Record<string, unknown>;

/** Every person-facing string of a manifest, by where it is. */
function personFacing(manifest: Node): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const take = (where: string, value: unknown) => {
    if (typeof value === 'string') out.push([where, value]);
  };
  const c = manifest.contributes as Node;
  take('description', manifest.description);
  take('capabilities.untrustedWorkspaces.description', ((manifest.capabilities as Node).untrustedWorkspaces as Node).description);
  for (const container of (c.viewsContainers as { activitybar: Node[] }).activitybar) take(`viewsContainers.${container.id}.title`, container.title);
  for (const views of Object.values(c.views as Record<string, Node[]>))
    for (const view of views) for (const field of ['name', 'contextualTitle']) take(`views.${view.id}.${field}`, view[field]);
  for (const command of c.commands as Node[]) for (const field of ['title', 'shortTitle', 'category']) take(`${command.command}.${field}`, command[field]);
  for (const section of c.configuration as Node[]) {
    take(`configuration.${section.id}.title`, section.title);
    for (const [key, setting] of Object.entries(section.properties as Record<string, Node>)) {
      for (const field of ['description', 'markdownDescription', 'deprecationMessage']) take(`${key}.${field}`, setting[field]);
      for (const field of ['enumDescriptions', 'markdownEnumDescriptions'])
        ((setting[field] as string[] | undefined) ?? []).forEach((text, i) => take(`${key}.${field}[${i}]`, text));
    }
  }
  for (const walkthrough of c.walkthroughs as Node[]) {
    for (const field of ['title', 'description']) take(`walkthroughs.${walkthrough.id}.${field}`, walkthrough[field]);
    for (const step of walkthrough.steps as Node[])
      for (const field of ['title', 'description']) take(`walkthroughs.${walkthrough.id}.${step.id}.${field}`, step[field]);
  }
  for (const participant of c.chatParticipants as Node[]) {
    for (const field of ['fullName', 'description']) take(`chatParticipants.${participant.id}.${field}`, participant[field]);
    for (const command of (participant.commands as Node[] | undefined) ?? [])
      take(`chatParticipants.${participant.id}.${command.name}.description`, command.description);
  }
  for (const tool of c.languageModelTools as Node[]) for (const field of ['displayName', 'userDescription']) take(`tools.${tool.name}.${field}`, tool[field]);
  for (const welcome of (c.viewsWelcome as Node[] | undefined) ?? []) take(`viewsWelcome.${welcome.view}.contents`, welcome.contents);
  return out;
}

describe('localisation: the manifest', () => {
  const strings = manifestStrings();
  const raw = personFacing(rawManifest());

  it('takes every person-facing string from package.nls.json', () => {
    assert.ok(raw.length > 120, `only ${raw.length} person-facing strings found: is the walk still right?`);
    const literal = raw.filter(([, value]) => nlsKey(value) === undefined).map(([where, value]) => `${where}: ${JSON.stringify(value.slice(0, 60))}`);
    assert.deepEqual(literal, [], 'strings written in package.json instead of package.nls.json');
    const missing = raw.map(([, value]) => nlsKey(value)!).filter((key) => !(key in strings));
    assert.deepEqual(missing, [], 'keys package.nls.json does not define');
  });

  it('has no string in package.nls.json that nothing uses', () => {
    const used = new Set(raw.map(([, value]) => nlsKey(value)));
    assert.deepEqual(
      Object.keys(strings).filter((key) => !used.has(key)),
      [],
    );
  });

  it('a pseudo-locale bundle generated from it reaches every string a person reads', () => {
    const bundle = Object.fromEntries(Object.entries(strings).map(([key, text]) => [key, pseudo(text)]));
    const shown = personFacing(localizedManifest(bundle));
    const english = shown.filter(([, text]) => !(text.startsWith('⟦') && text.endsWith('⟧'))).map(([where]) => where);
    assert.deepEqual(english, [], 'left in English under the pseudo-locale');
    // The pseudo strings keep what VS Code acts on: command links and setting links still resolve.
    const links = shown.flatMap(([, text]) => [...text.matchAll(/\]\((command:[\w.]+)\)|#(tasklane\.[\w.]+)#/g)].map((m) => m[1] ?? m[2]));
    assert.ok(links.length >= 10, `only ${links.length} links survived`);
  });
});

// Localisation of the host: what Tasklane says in notifications, quick picks, input boxes, progress
// and hovers goes through `vscode.l10n.t`, and l10n/bundle.l10n.json holds every such message.
interface L10nScript {
  extractHostStrings(): { messages: Map<string, string>; problems: string[]; webviewWords: Record<string, string> };
  bundleText(messages: Map<string, string>): string;
  BUNDLE: string;
  catalogText(webviewWords: Record<string, string>): string;
  WEBVIEW_CATALOG: string;
}
const l10nScript = '../../../scripts/l10n.mjs';

/** Person-facing literals the host passes to VS Code without `l10n.t`, by file and line. */
function unlocalized(root: string): string[] {
  const MESSAGES = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
  const PICKERS = new Set(['showQuickPick', 'showInputBox', 'withProgress']);
  const OPTIONS = new Set(['title', 'placeHolder', 'prompt', 'detail', 'label', 'description', 'tooltip']);
  // A tree item's label, description and tooltip, a status bar item's text and tooltip, a quick
  // pick item's label, description and detail (issue 42).
  const ASSIGNED = new Set(['title', 'placeholder', 'tooltip', 'text', 'label', 'description', 'detail']);
  /** Calls whose arguments are text a person reads: a tree row, a Chores view detail line. */
  const SHOWN_ARGS = new Set(['TreeItem', 'detailLine']);
  const found: string[] = [];
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) files.push(full);
    }
  };
  walk(path.join(root, 'src/host'));
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const report = (node: ts.Node) => {
      // A template's words are its literal parts; what its expressions hold is checked where it is made.
      const text = ts.isTemplateExpression(node)
        ? [node.head, ...node.templateSpans.map((span) => span.literal)].map((part) => part.text).join(' ')
        : (node as ts.StringLiteral).text;
      if (/[A-Za-z]{2,}/.test(text))
        found.push(`${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${text.slice(0, 50)}`);
    };
    const check = (node: ts.Node): void => {
      if (ts.isTemplateExpression(node)) {
        report(node);
        return node.templateSpans.forEach((span) => check(span.expression));
      }
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return report(node);
      if (ts.isArrayLiteralExpression(node)) return node.elements.forEach(check);
      if (ts.isConditionalExpression(node)) return [node.whenTrue, node.whenFalse].forEach(check);
      if (ts.isSpreadElement(node) || ts.isParenthesizedExpression(node)) return check(node.expression);
      if (ts.isObjectLiteralExpression(node))
        for (const property of node.properties)
          if (ts.isPropertyAssignment(property) && OPTIONS.has(property.name.getText(source))) check(property.initializer);
    };
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const name = node.expression.name.text;
        if (MESSAGES.has(name) || PICKERS.has(name)) node.arguments.forEach(check);
      }
      // `new vscode.TreeItem(label)`, `detailLine(id, text)`: the text shown is their first or second argument.
      if (ts.isNewExpression(node) && node.expression.getText(source).endsWith('TreeItem') && node.arguments?.[0]) check(node.arguments[0]);
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && SHOWN_ARGS.has(node.expression.text)) node.arguments.slice(1, 2).forEach(check);
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(node.left) &&
        ASSIGNED.has(node.left.name.text)
      )
        check(node.right);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('localisation: the host', () => {
  const root = path.resolve(__dirname, '../../..');

  it('passes no person-facing literal to a notification, picker, input box, progress, tree item or status bar without l10n.t', () => {
    assert.deepEqual(unlocalized(root), []);
  });

  it('has every l10n.t message in l10n/bundle.l10n.json (npm run l10n), and package.json points VS Code at it', async () => {
    const { extractHostStrings, bundleText, BUNDLE, catalogText, WEBVIEW_CATALOG } = (await import(l10nScript)) as L10nScript;
    const { messages, problems, webviewWords } = extractHostStrings();
    assert.deepEqual(problems, []);
    assert.ok(messages.size > 80, `only ${messages.size} host strings`);
    assert.equal(fs.readFileSync(BUNDLE, 'utf8'), bundleText(messages), 'l10n/bundle.l10n.json is stale: run npm run l10n');
    assert.equal(fs.readFileSync(WEBVIEW_CATALOG, 'utf8'), catalogText(webviewWords), 'l10n/webview.words.json is stale: run npm run l10n');
    assert.equal((rawManifest() as { l10n?: string }).l10n, './l10n');
  });

  it('a pseudo-locale bundle generated from it translates every message and keeps its placeholders and icons', async () => {
    const { extractHostStrings } = (await import(l10nScript)) as L10nScript;
    const { messages } = extractHostStrings();
    const english = JSON.parse(fs.readFileSync(path.join(root, 'l10n/bundle.l10n.json'), 'utf8')) as Record<string, string>;
    const bundle = Object.fromEntries(Object.entries(english).map(([key, text]) => [key, pseudo(text)]));
    for (const message of messages.keys()) {
      const translated = bundle[message];
      assert.ok(translated?.startsWith('⟦'), `"${message}" has no translation in the pseudo-locale`);
      const marks = (text: string) => [...text.matchAll(/\{\d+\}|\$\([\w-]+\)/g)].map((m) => m[0]).sort();
      assert.deepEqual(marks(translated), marks(message), `"${message}": placeholders or icons lost`);
    }
  });
});
