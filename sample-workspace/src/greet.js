'use strict';

/** Returns a greeting for `name`; an empty name greets the world. */
function greet(name) {
  const who = String(name ?? '').trim() || 'world';
  return `Hello, ${who}!`;
}

module.exports = { greet };
