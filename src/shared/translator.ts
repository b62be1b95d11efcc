/**
 * Translation as the host has it: `vscode.l10n` fits this interface, and a module that builds words
 * for the host's surfaces without importing `vscode` (so the unit tier can test it) takes one. Every
 * `l10n.t('…')` call in src/host and src/shared is collected into l10n/bundle.l10n.json
 * (scripts/l10n.mjs), whichever object answers it.
 */
export interface Translator {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** No translation: English with each `{n}` filled in, as VS Code does when no bundle has the message. */
export const ENGLISH: Translator = {
  t: (message, ...args) => message.replace(/\{(\d+)\}/g, (mark, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : mark)),
};
