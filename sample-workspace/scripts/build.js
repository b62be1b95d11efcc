'use strict';
// The sample "build": load every module under src/ and exercise it once. Exits 1 on any error.
const fs = require('node:fs');
const path = require('node:path');

const srcDir = path.join(__dirname, '..', 'src');
for (const file of fs.readdirSync(srcDir).filter((f) => f.endsWith('.js'))) {
  require(path.join(srcDir, file));
  process.stdout.write(`ok ${file}\n`);
}
const { greet } = require('../src/greet');
if (greet('Tasklane') !== 'Hello, Tasklane!') {
  process.stderr.write('greet() is broken\n');
  process.exit(1);
}
process.stdout.write('build succeeded\n');
