/**
 * The sidebar's words (docs/ARCHITECTURE.md, "Words and languages"): every word a webview file
 * puts on screen comes from the one catalog (src/shared/webviewWords.ts) that the host translates,
 * and each of its words is in the l10n bundle a translator copies.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WEBVIEW_WORDS } from '../../../src/shared/webviewWords';
import { domLiterals } from '../support/domLiterals';

const root = path.resolve(__dirname, '../../..');
const WEBVIEW = path.join(root, 'src/webview');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('localisation: the sidebar webview', () => {
  it('puts no literal word into the DOM: every one is looked up in the catalog', () => {
    const found = fs
      .readdirSync(WEBVIEW)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        domLiterals(file, fs.readFileSync(path.join(WEBVIEW, file), 'utf8')).map(
          ({ line, text }) => `src/webview/${file}:${line}: ${JSON.stringify(text)}: add it to src/shared/webviewWords.ts and use word('…')`,
        ),
      );
    assert.deepEqual(found, []);
  });

  it('finds a literal word in each place a webview file could put one', () => {
    const source = [
      "h('div', {}, 'Saved');",
      "h('a', { title: 'Open it', 'aria-label': `Open ${name}` }, ok ? 'yes' : word('no'));",
      "el.textContent = failed ? 'Failed' : '';",
      "el.setAttribute('aria-label', 'Close');",
      "el.append(' of task ' + name);",
      'const html = `<span title="Not shown">[image: ${alt}]</span>`;',
      // Not words for people: a class, a key, an attribute that is no text, a value.
      "h('div', { class: 'block-head', 'data-state': 'done' }, word('steps'), name);",
      "el.setAttribute('data-kind', 'edits');",
    ].join('\n');
    assert.deepEqual(
      domLiterals('probe.ts', source).map(({ line, text }) => `${line}:${text}`),
      ['1:Saved', '2:Open it', '2:Open ', '2:yes', '3:Failed', '4:Close', '5: of task ', '6:[image: {}]', '6:Not shown'],
    );
  });

  it('has every catalog word in the l10n bundle, and every word in use', () => {
    const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, string>;
    assert.deepEqual(
      Object.values(WEBVIEW_WORDS).filter((message) => !(message in bundle)),
      [],
      'run `npm run l10n`',
    );
    const users = [...fs.readdirSync(WEBVIEW).map((file) => read(`src/webview/${file}`)), read('src/host/sidebarProvider.ts')].join('\n');
    assert.deepEqual(
      Object.keys(WEBVIEW_WORDS).filter((key) => !new RegExp(`\\b${key}\\b`).test(users)),
      [],
      'catalog words no code shows',
    );
  });
});
