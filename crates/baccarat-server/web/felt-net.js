// The player's coup on the felt, in numbers, with no page around it (so that
// `node browser/unit/felt-net.mjs` tests it on its own).

/** What the player's settled wagers of one coup came to: what they won, what
 * they lost with the commission, the net, and which words say it. A net of
 * nothing is "your stakes are returned" only when nothing was won or lost;
 * a win that a loss cancelled (a pair won while the main wager lost, issue 45
 * §5) is "even", with both amounts. Stakes returned count as neither. */
export function coupNet(settled) {
  const won = settled.reduce((a, w) => a + w.settlement.won, 0);
  const lost = settled.reduce((a, w) => a + w.settlement.lost + w.settlement.commission, 0);
  const net = won - lost;
  const kind = net > 0 ? 'won' : net < 0 ? 'lost' : won > 0 ? 'even' : 'returned';
  return { won, lost, net, kind };
}
