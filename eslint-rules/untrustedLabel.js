// Untrusted text reaches VS Code's native surfaces other than notifications (tree items, the status
// bar, quick pick items, a modal's detail) only through a neutraliser of
// src/core/security/surfaceText.ts (issue 40): a chore name, an MCP server's name or error, a task
// title or a model's reason could otherwise draw `$(icon)`s that are not Tasklane's, forge a second
// line, reorder itself with bidi controls, or fill the view with 10 kB of text.
//
// What is checked (in src/host and src/extension.ts):
//   - `new vscode.TreeItem(label, …)`;
//   - `x.label = …`, `x.description = …`, `x.tooltip = …`, `x.detail = …`, `x.text = …` (a tree item,
//     a status bar item, a quick pick item), `x.tooltip = new vscode.MarkdownString(…)`;
//   - the `label`, `description` and `detail` of quick pick items written where they are shown:
//     `showQuickPick([...])`, `showQuickPick(list.map((x) => ({ … })))`, `quickPick.items = …`,
//     and, with type information, every object literal typed as a `QuickPickItem` wherever it is;
//   - a modal's `detail` (`show*Message(…, { modal: true, detail }, …)`);
//   - the `title`, `prompt` and `placeHolder` of `showQuickPick` and `showInputBox`.
// A value is accepted when it is:
//   - a string or number literal, a template literal whose values are each accepted;
//   - a call of a neutraliser (forLabel, forTooltip, forNotification, forModalDetail,
//     forMarkdown, notice`…`), or of `l10n.t('literal', …values)` whose values are each accepted;
//   - of a type that cannot carry outside text: number, boolean, undefined, a string literal union
//     (Tasklane's own words, such as a task's status); with type information only (typed linting);
//   - a Date's or a number's toLocale*String/toFixed, or a call of a formatter listed in TRUSTED
//     (text made only from numbers and Tasklane's own words);
//   - a conditional, `??`, `||` or `+` of accepted values, or a const initialised with one;
//   - `list.map((x) => accepted).join(…)`.
// Anything else is reported: pass it through forLabel (or the neutraliser of that surface).
'use strict';

const { name, constInit } = require('./astValues.js');

const NEUTRALISERS = new Set(['forLabel', 'forTooltip', 'forNotification', 'forModalDetail', 'forMarkdown', 'notice']);
/** Formatters whose text is built only from numbers and Tasklane's own words. */
const TRUSTED = new Set(['formatBytes', 'costText', 'stateIconText']);
const ASSIGNED = new Set(['label', 'description', 'tooltip', 'detail', 'text']);
const ITEM_FIELDS = new Set(['label', 'description', 'detail']);
const PICKER_FIELDS = new Set(['title', 'prompt', 'placeHolder']);
const SHOW = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
const MAX_DEPTH = 12;

/** With typed linting: the expression's type is one that cannot carry text from outside. */
function closedType(context, node) {
  const services = context.sourceCode.parserServices;
  if (!services?.program || !services.esTreeNodeToTSNodeMap) return false;
  const checker = services.program.getTypeChecker();
  const ts = require('typescript');
  const closed = (type) => {
    if (type.isUnion()) return type.types.every(closed);
    const f = type.flags;
    return Boolean(
      f &
      (ts.TypeFlags.NumberLike |
        ts.TypeFlags.BooleanLike |
        ts.TypeFlags.BigIntLike |
        ts.TypeFlags.Undefined |
        ts.TypeFlags.Null |
        ts.TypeFlags.StringLiteral |
        ts.TypeFlags.EnumLiteral),
    );
  };
  return closed(checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node)));
}

/** With typed linting: the receiver of a method call is a Date or a number. */
function dateOrNumber(context, node) {
  const services = context.sourceCode.parserServices;
  if (!services?.program || !services.esTreeNodeToTSNodeMap) return node.type === 'NewExpression' && name(node.callee) === 'Date';
  const type = services.program.getTypeChecker().getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));
  const ts = require('typescript');
  return Boolean(type.flags & ts.TypeFlags.NumberLike) || type.getSymbol()?.getName() === 'Date';
}

function accepted(context, node, depth = 0) {
  if (!node || depth > MAX_DEPTH) return false;
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string' || typeof node.value === 'number' || typeof node.value === 'boolean';
    case 'TemplateLiteral':
      return node.expressions.every((e) => accepted(context, e, depth + 1));
    case 'TaggedTemplateExpression':
      return NEUTRALISERS.has(name(node.tag));
    case 'CallExpression': {
      const callee = name(node.callee);
      if (NEUTRALISERS.has(callee) || TRUSTED.has(callee)) return true;
      if (node.callee.type === 'MemberExpression' && callee === 't' && name(node.callee.object) === 'l10n') {
        const [message, ...values] = node.arguments;
        return message?.type === 'Literal' && typeof message.value === 'string' && values.every((v) => accepted(context, v, depth + 1));
      }
      // `list.map((x) => accepted).join('…')`: each item's text is checked where it is made.
      if (node.callee.type === 'MemberExpression' && callee === 'join' && node.callee.object.type === 'CallExpression') {
        const map = node.callee.object;
        const fn = map.arguments[0];
        return (
          name(map.callee) === 'map' &&
          (node.arguments.length === 0 || accepted(context, node.arguments[0], depth + 1)) &&
          fn?.type === 'ArrowFunctionExpression' &&
          fn.body.type !== 'BlockStatement' &&
          accepted(context, fn.body, depth + 1)
        );
      }
      if (node.callee.type === 'MemberExpression' && /^(toLocale(Date|Time)?String|toISOString|toFixed)$/.test(callee ?? ''))
        return dateOrNumber(context, node.callee.object);
      return closedType(context, node);
    }
    case 'ConditionalExpression':
      return accepted(context, node.consequent, depth + 1) && accepted(context, node.alternate, depth + 1);
    case 'LogicalExpression':
    case 'BinaryExpression':
      return accepted(context, node.left, depth + 1) && accepted(context, node.right, depth + 1);
    case 'Identifier': {
      if (node.name === 'undefined') return true;
      const init = constInit(context, node);
      return (init ? accepted(context, init, depth + 1) : false) || closedType(context, node);
    }
    case 'TSAsExpression':
    case 'TSNonNullExpression':
      return accepted(context, node.expression, depth + 1);
    case 'NewExpression':
      // A tooltip as Markdown: its text must be accepted too (forMarkdown for outside text).
      return name(node.callee) === 'MarkdownString' && accepted(context, node.arguments[0], depth + 1);
    default:
      return closedType(context, node);
  }
}

/** The object literals a list of quick pick items is written with, where they can be seen. */
function itemObjects(context, node, depth = 0) {
  if (!node || depth > MAX_DEPTH) return [];
  switch (node.type) {
    case 'ObjectExpression':
      return [node];
    case 'ArrayExpression':
      return node.elements.flatMap((e) => itemObjects(context, e, depth + 1));
    case 'SpreadElement':
      return itemObjects(context, node.argument, depth + 1);
    case 'ConditionalExpression':
      return [...itemObjects(context, node.consequent, depth + 1), ...itemObjects(context, node.alternate, depth + 1)];
    case 'AwaitExpression':
    case 'TSAsExpression':
      return itemObjects(context, node.expression, depth + 1);
    case 'Identifier': {
      const init = constInit(context, node);
      return init ? itemObjects(context, init, depth + 1) : [];
    }
    case 'CallExpression': {
      if (node.callee.type !== 'MemberExpression' || !['map', 'flatMap', 'concat', 'filter'].includes(name(node.callee))) return [];
      const fromReceiver = itemObjects(context, node.callee.object, depth + 1);
      const fn = node.arguments[0];
      if (!fn || (fn.type !== 'ArrowFunctionExpression' && fn.type !== 'FunctionExpression')) return fromReceiver;
      if (fn.body.type !== 'BlockStatement') return [...fromReceiver, ...itemObjects(context, fn.body, depth + 1)];
      const returned = [];
      const walk = (n) => {
        if (!n || typeof n.type !== 'string') return;
        if (n.type === 'ReturnStatement') returned.push(...itemObjects(context, n.argument, depth + 1));
        if (n.type.includes('Function')) return;
        for (const key of Object.keys(n)) {
          if (key === 'parent') continue;
          const child = n[key];
          if (Array.isArray(child)) child.forEach(walk);
          else if (child && typeof child.type === 'string') walk(child);
        }
      };
      fn.body.body.forEach(walk);
      return [...fromReceiver, ...returned];
    }
    default:
      return [];
  }
}

/** With typed linting: an object literal typed as a quick pick item (`items.push({…})`, `const items: Item[] = …`). */
function quickPickItem(context, object) {
  const services = context.sourceCode.parserServices;
  if (!services?.program || !services.esTreeNodeToTSNodeMap) return false;
  const checker = services.program.getTypeChecker();
  const type = checker.getContextualType(services.esTreeNodeToTSNodeMap.get(object));
  const named = (t) => t.getSymbol()?.getName() === 'QuickPickItem' || t.aliasSymbol?.getName() === 'QuickPickItem';
  const is = (t) => Boolean(t) && (named(t) || ((t.isUnion() || t.isIntersection()) && t.types.some(is)));
  return is(type);
}

function property(object, key) {
  return object.properties.find((p) => p.type === 'Property' && !p.computed && name(p.key) === key);
}

module.exports = {
  'untrusted-label': {
    meta: { type: 'problem', schema: [] },
    create(context) {
      const checked = new Set();
      const check = (node, where) => {
        if (checked.has(node)) return;
        checked.add(node);
        if (accepted(context, node)) return;
        context.report({
          node,
          message: `${where} may carry outside text: write it with forLabel(value) (forTooltip, forMarkdown, forModalDetail: src/core/security/surfaceText.ts), so $(icons), line breaks, bidi controls and length are inert.`,
        });
      };
      const checkItems = (list) => {
        for (const object of itemObjects(context, list))
          for (const key of ITEM_FIELDS) {
            const p = property(object, key);
            if (p) check(p.value, `A quick pick item's ${key}`);
          }
      };
      return {
        ObjectExpression(node) {
          if (!quickPickItem(context, node)) return;
          for (const key of ITEM_FIELDS) {
            const p = property(node, key);
            if (p) check(p.value, `A quick pick item's ${key}`);
          }
        },
        NewExpression(node) {
          if (name(node.callee) !== 'TreeItem' || !node.arguments[0]) return;
          const label = node.arguments[0];
          if (label.type === 'ObjectExpression') {
            const p = property(label, 'label');
            if (p) check(p.value, "A tree item's label");
          } else if (label.type !== 'MemberExpression' || name(label) !== 'Uri') check(label, "A tree item's label");
        },
        AssignmentExpression(node) {
          if (node.operator !== '=' || node.left.type !== 'MemberExpression') return;
          const key = name(node.left);
          if (key === 'items') return checkItems(node.right);
          if (ASSIGNED.has(key)) check(node.right, `\`.${key} =\``);
        },
        CallExpression(node) {
          const callee = name(node.callee);
          // A quick pick's or an input box's title, prompt and placeholder.
          const options = callee === 'showQuickPick' ? node.arguments[1] : callee === 'showInputBox' ? node.arguments[0] : undefined;
          if (options?.type === 'ObjectExpression')
            for (const key of PICKER_FIELDS) {
              const p = property(options, key);
              if (p) check(p.value, `A picker's ${key}`);
            }
          if (callee === 'showQuickPick') return checkItems(node.arguments[0]);
          if (SHOW.has(callee)) {
            const options = node.arguments[1];
            if (options?.type !== 'ObjectExpression' || !property(options, 'modal')) return;
            const detail = property(options, 'detail');
            if (detail) check(detail.value, "A modal's detail");
          }
        },
      };
    },
  },
};
