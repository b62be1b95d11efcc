// Stands in for the 'vscode' module in the programs of the layers that must not use it
// (tsconfig.core.json, tsconfig.shared.json, tsconfig.webview.json). `types` only keeps a
// package's globals out; an import would still find @types/vscode, so the import is mapped here:
// this module exports nothing, and any use of it fails to type-check.
export {};
