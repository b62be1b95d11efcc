// Type fixture (tsconfig.host.json): each marked line must fail to type-check in src/host.
export const title = document.title; // no DOM
export const suite = describe; // no mocha
// Node and vscode are there.
export type Uri = import('vscode').Uri;
export const cwd: string = process.cwd();
