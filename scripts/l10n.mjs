// The host's strings for translators: every `vscode.l10n.t('…')` and notice`…` in src/extension.ts, src/host
// and src/shared (a Translator's `l10n.t`), and the sidebar webview's words (WEBVIEW_WORDS' values),
// written to l10n/bundle.l10n.json (package.json `"l10n": "./l10n"`), the file VS Code reads for
// English and a translator copies to bundle.l10n.<locale>.json. A message is its own key, as VS
// Code's l10n tooling does it; `{0}` marks where an argument goes.
//   node scripts/l10n.mjs           write l10n/bundle.l10n.json
//   node scripts/l10n.mjs --check   exit 1 when it is not what the sources say (the unit tests run it)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = path.join(root, 'l10n', 'bundle.l10n.json');
/**
 * The sidebar's catalog as the host reads it at run time (key → English, from WEBVIEW_WORDS): a file
 * beside the bundle, not code in dist/main.js, whose size has a budget (bundleSize.test.ts).
 */
export const WEBVIEW_CATALOG = path.join(root, 'l10n', 'webview.words.json');
/** The notice tag's own implementation: it translates the messages collected from its call sites. */
const NOTICE_TAG = path.join('src', 'host', 'notice.ts');
/** The webview's catalog: its values are messages, translated by the host in one `l10n.t(message)` call. */
const WEBVIEW_WORDS = path.join('src', 'shared', 'webviewWords.ts');

function sourceFiles() {
  const files = [path.join(root, 'src/extension.ts')];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) files.push(full);
    }
  };
  walk(path.join(root, 'src/host'));
  // Words the host shows that a vscode-free module builds with a Translator (src/shared/translator.ts).
  walk(path.join(root, 'src/shared'));
  return files.sort();
}

/** Every `l10n.t` message of the host, with where it is; a call whose message is not a literal is a problem. */
export function extractHostStrings() {
  const messages = new Map();
  const problems = [];
  /** WEBVIEW_WORDS, key → message, in its order. */
  const webviewWords = {};
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      // The webview's words: each value of the catalog's object literal is a message.
      if (path.relative(root, file) === WEBVIEW_WORDS && ts.isVariableDeclaration(node) && node.name.getText(source) === 'WEBVIEW_WORDS') {
        let catalog = node.initializer;
        while (catalog && ts.isAsExpression(catalog)) catalog = catalog.expression;
        for (const property of catalog && ts.isObjectLiteralExpression(catalog) ? catalog.properties : []) {
          const where = `${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(property.getStart(source)).line + 1}`;
          if (ts.isPropertyAssignment(property) && (ts.isStringLiteral(property.initializer) || ts.isNoSubstitutionTemplateLiteral(property.initializer))) {
            if (!messages.has(property.initializer.text)) messages.set(property.initializer.text, where);
            webviewWords[property.name.getText(source)] = property.initializer.text;
          } else problems.push(`${where}: a webview word needs a literal message`);
        }
      }
      // The host's notice`…${value}…` tag (src/host/notice.ts) is one message with a {n} per value.
      if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'notice') {
        const template = node.template;
        const message = ts.isNoSubstitutionTemplateLiteral(template)
          ? template.text
          : template.templateSpans.reduce((out, span, i) => `${out}{${i}}${span.literal.text}`, template.head.text);
        if (!messages.has(message))
          messages.set(message, `${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      }
      if (ts.isCallExpression(node) && /(^|\.)l10n\.t$/.test(node.expression.getText(source))) {
        const [first] = node.arguments;
        const where = `${path.relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) {
          if (!messages.has(first.text)) messages.set(first.text, where);
        } else if (path.relative(root, file) !== NOTICE_TAG && path.relative(root, file) !== WEBVIEW_WORDS)
          problems.push(`${where}: l10n.t needs a literal message (a translator can only translate what the bundle holds)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { messages, problems, webviewWords };
}

/** The webview catalog file's text. */
export function catalogText(webviewWords) {
  return `${JSON.stringify(webviewWords, null, 2)}\n`;
}

/** The bundle's text for these messages: sorted, one key per message, English as its own value. */
export function bundleText(messages) {
  const sorted = [...messages.keys()].sort();
  return `${JSON.stringify(Object.fromEntries(sorted.map((m) => [m, m])), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { messages, problems, webviewWords } = extractHostStrings();
  if (problems.length) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exit(1);
  }
  const text = bundleText(messages);
  const catalog = catalogText(webviewWords);
  if (process.argv.includes('--check')) {
    for (const [file, wanted] of [
      [BUNDLE, text],
      [WEBVIEW_CATALOG, catalog],
    ]) {
      const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (current !== wanted) {
        process.stderr.write(`${path.relative(root, file)} is not what the sources say: run \`npm run l10n\` and commit it.\n`);
        process.exit(1);
      }
    }
    process.stdout.write(`l10n: ${messages.size} host strings, bundle up to date\n`);
  } else {
    fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
    fs.writeFileSync(BUNDLE, text);
    fs.writeFileSync(WEBVIEW_CATALOG, catalog);
    process.stdout.write(`l10n: ${messages.size} host strings written to ${path.relative(root, BUNDLE)}\n`);
  }
}
