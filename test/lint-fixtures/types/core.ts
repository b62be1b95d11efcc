// Type fixture (tsconfig.core.json): each marked line must fail to type-check in src/core.
export const title = document.title; // no DOM
export const suite = describe; // no mocha
export type Uri = import('vscode').Uri; // no vscode
// Node is there: the core owns its storage folder through node:fs (docs/DESIGN.md §1).
export const cwd: string = process.cwd();
