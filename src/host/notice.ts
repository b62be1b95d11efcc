import * as vscode from 'vscode';
import { forNotification } from '../core/security/surfaceText';

/**
 * The host's tagged template for notifications: the literal parts are Tasklane's own words,
 * translated as one message (`Tasklane: there is no run {0}.`, collected into
 * l10n/bundle.l10n.json by scripts/l10n.mjs), and each value is passed through
 * `forNotification`, so text from a model, a link or a server is never a command link.
 * `notice\`Tasklane: there is no run ${id}.\``.
 */
export function notice(strings: TemplateStringsArray, ...values: unknown[]): string {
  const message = strings.reduce((out, part, i) => (i === 0 ? part : `${out}{${i - 1}}${part}`), '');
  return vscode.l10n.t(message, ...values.map((value) => forNotification(String(value))));
}
