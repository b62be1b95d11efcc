'use strict';

function add(a, b) {
  return a + b;
}

function mean(values) {
  if (values.length === 0) throw new Error('mean() needs at least one value');
  return values.reduce(add, 0) / values.length;
}

module.exports = { add, mean };
