// tasklane-cycles/no-cycle: forbids import cycles among the project's own modules, `import type`
// edges included.
//
// import-x/no-cycle skips type-only imports by design. A type-only cycle costs nothing at run
// time, but it means a contract depends on its implementation (the engine's `taskHooks → react`
// edge was one), and the first value import added along it becomes a real cycle with init-order
// bugs. So this rule follows every relative import a file makes (`import`, `import type`,
// `export … from`, `import()`, `require()`), read with TypeScript's own pre-processor, and reports
// an import whose target leads back to the importing file, naming the cycle.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];

/** file -> { mtimeMs, deps }, for the files read during one lint run. */
const cache = new Map();

function isFile(candidate) {
  try {
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

function resolveRelative(fromFile, specifier) {
  if (typeof specifier !== 'string' || !specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext), ...EXTENSIONS.map((ext) => path.join(base, `index${ext}`))];
  if (/\.[mc]?js$/.test(base)) candidates.push(base.replace(/\.([mc]?)js$/, '.$1ts'));
  return candidates.find(isFile);
}

function depsOf(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return [];
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === stat.mtimeMs) return hit.deps;
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  const deps = [...new Set(importedFiles.map((f) => resolveRelative(file, f.fileName)).filter(Boolean))];
  cache.set(file, { mtimeMs: stat.mtimeMs, deps });
  return deps;
}

/** The shortest path from `start` back to `target` (breadth first), or undefined. */
function pathBack(start, target) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift();
    for (const dep of depsOf(file)) {
      if (dep === target) {
        const route = [file];
        for (let at = previous.get(file); at !== undefined; at = previous.get(at)) route.unshift(at);
        return route;
      }
      if (!previous.has(dep)) {
        previous.set(dep, file);
        queue.push(dep);
      }
    }
  }
  return undefined;
}

module.exports = {
  rules: {
    'no-cycle': {
      meta: { type: 'problem', schema: [], docs: { description: 'Forbid import cycles, type-only imports included.' } },
      create(context) {
        const file = path.resolve(context.physicalFilename ?? context.filename);
        const root = context.cwd ?? process.cwd();
        const show = (f) => path.relative(root, f).split(path.sep).join('/');
        const check = (node, source) => {
          const target = resolveRelative(file, source);
          if (!target || target === file) return;
          const route = pathBack(target, file);
          if (!route) return;
          const cycle = [file, ...route, file].map(show).join(' → ');
          context.report({ node, message: `Import cycle: ${cycle}. Move what both sides need into a module that imports neither (type-only imports count).` });
        };
        return {
          ImportDeclaration: (node) => check(node, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
          ExportAllDeclaration: (node) => check(node, node.source.value),
          ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
          CallExpression: (node) => {
            if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal')
              check(node, node.arguments[0].value);
          },
        };
      },
    },
  },
};
