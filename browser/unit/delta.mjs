// The table socket's deltas as the pages follow them
// (crates/baccarat-server/web/delta.js), without a browser or a server:
// `node browser/unit/delta.mjs` exits 0 when they hold. Run by
// crates/baccarat/tests/cli/browser.rs (delta_js). The server's side, and a
// property test over generated messages, are in `http/delta.rs`.
import assert from 'node:assert/strict';
import { applyDelta, deltaFollower } from '../../crates/baccarat-server/web/delta.js';

// Objects merge key by key; null is a value; arrays are replaced whole…
assert.deepEqual(applyDelta({ a: 1, b: { c: 2, d: 3 }, e: [1, 2] }, { b: { c: null }, e: [9] }),
  { a: 1, b: { c: null, d: 3 }, e: [9] });
// …unless a tail: keep the first k items, then append.
const road = [{ col: 0, row: 0 }, { col: 0, row: 1, ties: 0 }];
assert.deepEqual(applyDelta({ roads: road }, { roads: { $tail: [1, [{ col: 0, row: 1, ties: 1 }, { col: 1, row: 0 }]] } }),
  { roads: [{ col: 0, row: 0 }, { col: 0, row: 1, ties: 1 }, { col: 1, row: 0 }] });
// A `$tail` object where there was no array is an object like any other.
assert.deepEqual(applyDelta({ a: null }, { a: { $tail: [0, [2]] } }), { a: { $tail: [0, [2]] } });
// An object onto a non-object starts from {}; a new member is set.
assert.deepEqual(applyDelta({ out: null }, { out: { side: 'player', name: 'x' }, n: 1 }),
  { out: { side: 'player', name: 'x' }, n: 1 });
// "__proto__" is data, not the object's prototype.
const p = applyDelta({}, JSON.parse('{"__proto__": {"polluted": true}}'));
assert.equal(Object.getPrototypeOf(p), Object.prototype);
assert.equal({}.polluted, undefined);

// The follower: whole, then deltas in turn; a gap asks for the whole again.
const f = deltaFollower();
assert.deepEqual(f.take({ seq: 4, committed_ms: 1, full: { coup: 1, roads: [1] } }), { message: { coup: 1, roads: [1] } });
const second = f.take({ seq: 5, committed_ms: 2, delta: { coup: 2, roads: { $tail: [1, [2]] } } });
assert.deepEqual(second, { message: { coup: 2, roads: [1, 2] } });
second.message.coup = 99; // the caller's copy: the follower's message is its own
assert.deepEqual(f.take({ seq: 6, committed_ms: 3, delta: {} }), { message: { coup: 2, roads: [1, 2] } });
assert.deepEqual(f.take({ seq: 8, committed_ms: 4, delta: { coup: 3 } }), { resync: true });
assert.deepEqual(f.take({ seq: 9, committed_ms: 5, delta: { coup: 3 } }), { resync: true }, 'nothing applied until the whole comes');
assert.deepEqual(f.take({ seq: 9, committed_ms: 5, full: { coup: 3 } }), { message: { coup: 3 } });
assert.deepEqual(f.take({ error: 'x', code: 'bad_request' }), { other: { error: 'x', code: 'bad_request' } });

console.log('delta: ok');
