// Type fixture (tsconfig.webview.json): each marked line must fail to type-check in src/webview.
export const bytes = Buffer.from('x'); // no Node
export const env = process.env; // no Node
export type Uri = import('vscode').Uri; // no vscode
// The DOM is there.
export const title: string = document.title;
