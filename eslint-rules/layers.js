// Enforces the folder = layer rule of docs/DESIGN.md §1:
//   src/core/**    may not import 'vscode', src/host/** or src/webview/**
//   src/webview/** may import only src/shared/** (and the web component library it renders with)
//   src/shared/**  may import only zod and itself (both sides of the webview boundary load it)
//   src/host/**    may not import src/webview/** (the webview is a separate browser bundle)
//   src/cli/**     the headless host: like src/core, no 'vscode', src/host or src/webview
// Resolution is by path, so `../host/x`, `../../src/host/x` and `vscode` are all caught.
'use strict';
const path = require('node:path');

// The web component library it renders with, and the Markdown parser and highlighter of replies.
const WEBVIEW_PACKAGES = ['@vscode-elements/elements', 'markdown-it', 'highlight.js'];
const SHARED_PACKAGES = ['zod'];

const isPackage = (source, packages) => packages.some((p) => source === p || source.startsWith(`${p}/`));

function layerOf(file) {
  const normalized = file.split(path.sep).join('/');
  const match = /(?:^|\/)src\/(core|host|webview|shared|cli)\//.exec(normalized);
  return match ? match[1] : undefined;
}

function check(context, node, source) {
  if (typeof source !== 'string') return;
  const file = context.filename ?? context.getFilename();
  const from = layerOf(file);
  if (!from) return;
  const relative = source.startsWith('.');
  const target = relative ? layerOf(path.resolve(path.dirname(file), source) + '/') : undefined;
  if (from === 'host') {
    if (target === 'webview') {
      context.report({ node, message: 'src/host must not import src/webview; talk to the sidebar through src/shared/protocol.ts.' });
    }
    return;
  }
  if (from === 'shared') {
    if (relative ? target !== 'shared' : !isPackage(source, SHARED_PACKAGES)) {
      context.report({ node, message: `src/shared may import only zod and src/shared, not ${source}: the webview and the host both load it.` });
    }
    return;
  }
  if (from === 'core' || from === 'cli') {
    if (source === 'vscode' || source.startsWith('vscode/')) {
      context.report({
        node,
        message: `src/${from} must not import 'vscode'; declare a port in src/core/ports.ts and implement it in src/host${from === 'cli' ? ' or src/cli' : ''}.`,
      });
    } else if (target === 'host' || target === 'webview') {
      context.report({
        node,
        message: `src/${from} must not import src/${target}; ${from === 'core' ? 'the core depends only on its own ports' : 'the command line runs without VS Code'}.`,
      });
    }
    return;
  }
  // webview
  if (relative) {
    if (target !== 'webview' && target !== 'shared') {
      context.report({ node, message: `src/webview may import only src/shared (and itself), not ${source}.` });
    }
  } else if (!isPackage(source, WEBVIEW_PACKAGES)) {
    context.report({ node, message: `src/webview may import only src/shared; '${source}' is not allowed in the webview bundle.` });
  }
}

module.exports = {
  rules: {
    layers: {
      meta: { type: 'problem', schema: [] },
      create(context) {
        return {
          ImportDeclaration: (node) => check(context, node, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(context, node, node.source.value),
          ExportAllDeclaration: (node) => check(context, node, node.source.value),
          ImportExpression: (node) => node.source.type === 'Literal' && check(context, node, node.source.value),
          CallExpression: (node) => {
            if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
              check(context, node, node.arguments[0].value);
            }
          },
        };
      },
    },
  },
};
