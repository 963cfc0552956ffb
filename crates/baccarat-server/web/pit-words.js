// The pit console: the engine's events in words (notices and the recall).

import { money, words } from '/assets/common.js';
import { KIND_WORDS, POS_LABEL, cardText, clock, short, sideWords, spotWords, who } from '/assets/pit-base.js';

// ---------------------------------------------------------------------------
// Events in words (notices and recall)

function settlementWords(s) {
  if (!s) return '';
  const net = s.returned + s.won - s.commission - s.stake;
  const parts = [`stake ${money(s.stake)}`];
  if (s.returned) parts.push(`returned ${money(s.returned)}`);
  if (s.won) parts.push(`won ${money(s.won)}`);
  if (s.commission) parts.push(`commission ${money(s.commission)}`);
  if (s.lost) parts.push(`lost ${money(s.lost)}`);
  if (s.void) parts.push(`void ${money(s.void)}`);
  return `${parts.join(', ')}; net to the player ${money(net, { sign: true })}`;
}

/** One event in words. `ctx.wagers`: Map wager id -> wager (for settlements). */
export function describe(e, ctx = {}) {
  const w = ctx.wagers;
  switch (e.event) {
    case 'shoe_started': {
      let s = `Shoe ${e.shoe} started`;
      if (e.live_decks) s += `: live shoe of ${e.live_decks} decks`;
      else if (e.preshuffled) s += e.preshuffled.length ? `: ${e.preshuffled.length} pre-shuffled cards` : ': pre-shuffled cards (their order is withheld while the shoe is in play)';
      else if (e.continuous) s += ': continuous shuffler';
      else s += ': shuffled here';
      if (e.set) s += `, card set ${e.set}`;
      if (e.algorithm) s += ` (${e.algorithm})`;
      if (e.commitment) s += `; seed commitment ${short(e.commitment, 16)}…`;
      if (e.cut) s += `; cut at card ${e.cut.at}, cutting card ${e.cut.from_back} cards from the back`;
      return s;
    }
    case 'burned':
      return `Burned ${e.cards.length} card${e.cards.length === 1 ? '' : 's'} (${words(e.procedure)})${e.shown ? `, shown ${cardText(e.shown)}` : ''}: ${e.cards.map(cardText).join(' ')}`;
    case 'betting_opened':
      if (e.no_bet) return `Coup ${e.coup}: a no-bet coup${e.first_card ? `, starting with ${cardText(e.first_card)}` : ''}`;
      return `Coup ${e.coup}: betting opened ("place your bets")`;
    case 'wager_placed': {
      const x = e.wager;
      return `Wager #${x.id}: ${who(x.player)}, ${spotWords(x.spot)}, ${words(x.bet)} ${money(x.amount)}${x.ante ? ` with ante ${money(x.ante)}` : ''}${x.token ? ' in promotional tokens' : ''}${x.needs_approval ? ' — needs a supervisor’s approval' : ''}`;
    }
    case 'wager_withdrawn': return `Wager #${e.wager} withdrawn by the player`;
    case 'wager_approved': return `Wager #${e.wager} approved by a supervisor`;
    case 'wager_returned': return `Wager #${e.wager} returned whole`;
    case 'wager_reduced': return `Wager #${e.wager} reduced to ${money(e.to)}`;
    case 'betting_closed': return `No more bets (coup ${e.coup})`;
    case 'personal_limits_set': return `Player #${e.player} may wager ${money(e.min)} to ${money(e.max)}`;
    case 'wagers_reopened': return 'Wagers reopened before any card is exposed';
    case 'minimum_announced': return `Sign: the minimum rises to ${money(e.minimum)} at ${clock(e.effective_ms)}`;
    case 'minimum_changed': {
      const g = (e.grandfathered || []).map(([p, m]) => `player #${p} at ${money(m)}`);
      return `Minimum now ${money(e.minimum)}${g.length ? `; keeping the old minimum: ${g.join(', ')}` : ''}`;
    }
    case 'cutting_card_out':
      return `Cutting card out: ${e.coups_left === 1 ? 'this is the last coup' : 'finish this coup, then one more ("last coup")'}`;
    case 'card_dealt':
      return `${cardText(e.card)} to ${POS_LABEL[e.position] || e.position}, ${e.face_up ? 'face up' : 'face down'}`;
    case 'irregularity':
      return `Irregularity: ${KIND_WORDS[e.kind] || words(e.kind)}${e.card ? ` — card ${cardText(e.card)}` : ''}`;
    case 'coup_completed': {
      const s = e.summary;
      const hand = (name, total, cards) => `${name} ${total} (${cards} cards: ${cards > 2 ? 'drew a third card' : 'stood'})`;
      const winner = s.player_total > s.banker_total ? 'Player wins' : s.banker_total > s.player_total ? 'Banker wins' : 'Tie';
      return `Coup ${e.coup} complete: ${hand('Player', s.player_total, s.player_cards)}, ${hand('Banker', s.banker_total, s.banker_cards)} — ${winner}`;
    }
    case 'wager_settled': {
      const x = w && w.get(e.wager);
      const what = x ? ` (${words(x.bet)} ${money(x.amount)}, ${who(x.player)})` : '';
      const outcome = e.outcome ? words(e.outcome) : 'void';
      return `Wager #${e.wager}${what} settled: ${outcome}, pay line “${e.pays}”; ${settlementWords(e.settlement)}`;
    }
    case 'coup_voided': return `Coup ${e.coup} declared void: wagers returned`;
    case 'coup_closed': return `Coup ${e.coup} closed`;
    case 'reconstructed': return `Coup reconstructed in dealing order: ${e.cards.map(cardText).join(' ')}; players may withdraw before play resumes`;
    case 'resumed': return 'Play resumed';
    case 'hand_passed':
      return e.to ? `${sideWords(e.side)} hand passed face down to player #${e.to} to squeeze` : `${sideWords(e.side)} hand kept by the dealer`;
    case 'cards_declined': return `Player #${e.player} declined the ${sideWords(e.side)} hand; it passes on`;
    case 'hand_exposed': return `${sideWords(e.side)} hand exposed${e.by ? ` by player #${e.by}` : ' by the dealer'}`;
    case 'nominee_appointed': return e.nominee ? `Player #${e.player} appointed player #${e.nominee} as nominee` : `Player #${e.player} ended their nominee`;
    case 'marker_taken': return `Player #${e.player} took the Banker marker at seat ${e.seat}`;
    case 'marker_released': return `The Banker marker is offered on from seat ${e.from_seat}`;
    case 'withdrawals_offered': return 'Players may take their wagers back before play resumes';
    case 'shoe_ended': return `Shoe ${e.shoe} ended: ${e.reason}${e.seed ? `; seed revealed ${short(e.seed, 16)}…` : ''}`;
    default: {
      const rest = Object.entries(e).filter(([k]) => k !== 'event' && k !== 'rule')
        .map(([k, v]) => `${words(k).toLowerCase()} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
      return `${words(e.event)}${rest.length ? ': ' + rest.join(', ') : ''}`;
    }
  }
}
