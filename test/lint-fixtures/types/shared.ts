// Type fixture (tsconfig.shared.json): each marked line must fail to type-check in src/shared.
export const title = document.title; // no DOM
export const env = process.env; // no Node
export type Uri = import('vscode').Uri; // no vscode
// The language itself is there.
export const keys: string[] = Object.keys({ a: 1 });
