// Untrusted text reaches VS Code notifications and modals only through the neutraliser of
// src/core/security/surfaceText.ts (review 2026-12c finding 2): VS Code makes `[label](command:…)`
// in a notification's message a one-click command. The message of every showInformationMessage,
// showWarningMessage and showErrorMessage must be:
//   - a string literal, or a template literal without values (Tasklane's own words);
//   - the tagged template notice`…${value}…`, which neutralises each value;
//   - a call of forNotification(…);
//   - a conditional whose branches are each one of these;
//   - a const whose initial value is one of these.
// Anything else (a parameter, an error's message, a plain template with values) is reported.
'use strict';

const { name, constInit } = require('./astValues.js');

const SHOW = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
const NEUTRALISERS = new Set(['forNotification', 'notice']);

function safe(context, node, depth = 0) {
  if (!node || depth > 4) return false;
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string';
    case 'TemplateLiteral':
      return node.expressions.length === 0;
    case 'TaggedTemplateExpression':
      return NEUTRALISERS.has(name(node.tag));
    case 'CallExpression':
      return NEUTRALISERS.has(name(node.callee));
    case 'ConditionalExpression':
      return safe(context, node.consequent, depth + 1) && safe(context, node.alternate, depth + 1);
    case 'Identifier': {
      const init = constInit(context, node);
      return init ? safe(context, init, depth + 1) : false;
    }
    case 'TSAsExpression':
    case 'TSNonNullExpression':
      return safe(context, node.expression, depth + 1);
    default:
      return false;
  }
}

module.exports = {
  rules: {
    // Tree items, the status bar, quick pick items and a modal's detail: eslint-rules/untrustedLabel.js.
    ...require('./untrustedLabel.js'),
    'untrusted-text': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        return {
          CallExpression(node) {
            const shown = name(node.callee);
            if (!shown || !SHOW.has(shown) || node.callee.type !== 'MemberExpression') return;
            const message = node.arguments[0];
            if (safe(context, message)) return;
            context.report({
              node: message ?? node,
              message: `${shown}'s message may carry untrusted text: write it as notice\`…\${value}…\` or forNotification(value) (src/core/security/surfaceText.ts), so [label](command:…) in a value is not a link.`,
            });
          },
        };
      },
    },
  },
};
