// What the untrusted-text rules (untrustedText.js, untrustedLabel.js) read off the syntax tree.
'use strict';

/** A callee's or a member's name: `f` of `f(…)` and of `a.b.f(…)`. */
function name(node) {
  if (!node) return undefined;
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') return node.property.name;
  return undefined;
}

/** The initial value of the `const` an identifier names, if that is what it names. */
function constInit(context, identifier) {
  let scope = context.sourceCode.getScope(identifier);
  while (scope) {
    const variable = scope.set.get(identifier.name);
    if (variable) {
      const def = variable.defs.length === 1 ? variable.defs[0] : undefined;
      if (def?.type === 'Variable' && def.parent.kind === 'const' && def.node.init && def.node.id.type === 'Identifier') return def.node.init;
      return undefined;
    }
    scope = scope.upper;
  }
  return undefined;
}

module.exports = { name, constInit };
