// The felt's words for the player's coup (crates/baccarat-server/web/felt-net.js),
// without a browser or a server: `node browser/unit/felt-net.mjs` exits 0 when
// they hold. Run by crates/baccarat/tests/cli/browser.rs (felt_net_words).
import assert from 'node:assert/strict';
import { coupNet } from '../../crates/baccarat-server/web/felt-net.js';

const settled = (won, lost, commission = 0, returned = 0) => ({ settlement: { won, lost, commission, returned } });

// Issue 45 §5: a Player Pair of $10 won at 11:1 while the $110 Banker wager
// lost; the net is $0, and the felt said "Your stakes are returned".
const pairWonMainLost = coupNet([settled(11000, 0, 0, 1000), settled(0, 11000)]);
assert.deepEqual(pairWonMainLost, { won: 11000, lost: 11000, net: 0, kind: 'even' });

// A win cancelled by a commission and a loss is even too.
assert.equal(coupNet([settled(2000, 0, 100, 2000), settled(0, 1900)]).kind, 'even');

// Every stake back (a tie's push, a void): returned, nothing won or lost.
assert.deepEqual(coupNet([settled(0, 0, 0, 5000), settled(0, 0, 0, 1000)]), { won: 0, lost: 0, net: 0, kind: 'returned' });

// A net win or loss says so, commission counted with the loss.
assert.deepEqual(coupNet([settled(1900, 0, 100, 2000)]), { won: 1900, lost: 100, net: 1800, kind: 'won' });
assert.deepEqual(coupNet([settled(0, 1000), settled(500, 0, 0, 500)]), { won: 500, lost: 1000, net: -500, kind: 'lost' });

console.log('felt-net: ok');
