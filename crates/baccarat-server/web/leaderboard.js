// The public leaderboard (NSW 15): each table's chip counts, highest first,
// with the marker and who is out, updated live from the tournament's
// WebSocket; at the end, the placings and prizes. Made for a screen on the
// casino floor: no sign-in, large type, nothing secret (the server's view
// withholds undisclosed forms and the round's shoe seed).

import { money, follow, esc, $ } from './common.js';

const id = Number(new URLSearchParams(location.search).get('t')) || 1;

function render(m) {
  const t = m.tournament;
  const play = m.play;
  $('#b-name').textContent = t ? t.name : 'No such tournament';
  if (!t) return;
  if (!play) {
    $('#b-round').textContent = `Starts ${t.starts}; ${t.entrants} entered; prize pool ${money(t.pool)}`;
    $('#b-tables').innerHTML = '';
    return;
  }
  $('#b-round').textContent = `${play.round_name || ''}: round ${play.round} of ${play.rounds}${t.finished ? ' (finished)' : ''}`;
  $('#b-tables').innerHTML = play.tables.map((tb) => {
    const rows = [...tb.seats]
      .sort((a, b) => (a.out ? 1 : 0) - (b.out ? 1 : 0) || b.chips - a.chips)
      .map((s) => `<li data-testid="b-${s.player}" data-chips="${s.chips}" class="${s.out ? 'out' : ''}">
        <span class="name">${esc(s.name || `player ${s.player}`)}${tb.marker === s.box ? ' ★' : ''}</span>
        <span class="chips">${s.out ? 'out' : money(s.chips)}</span></li>`).join('');
    return `<section class="board-table" data-testid="b-table-${tb.table}">
      <h2>${tb.play_off ? 'Play-off' : `Table ${tb.table}`} <span class="sub">${tb.over ? 'session over' : `coup ${tb.coup}${tb.coups ? ` of ${tb.coups}` : ''}`}</span></h2>
      <ol>${rows}</ol></section>`;
  }).join('');
  $('#b-prizes').hidden = !play.prizes;
  if (play.prizes) {
    const prize = new Map(play.prizes.map((p) => [p.player, p]));
    const name = (p) => { const s = play.standings.find((x) => x.player === p); return (s && s.name) || (play.names && play.names[p]) || `player ${p}`; };
    $('#b-prize-list').innerHTML = play.placings.map((p) =>
      `<li data-testid="b-place-${p}">${esc(name(p))}${prize.get(p) && prize.get(p).prize ? `: ${money(prize.get(p).prize)}` : ''}</li>`).join('');
  }
}

follow(`/api/tournaments/${id}/ws`, render, (status) => { $('#conn').dataset.state = status; $('#conn').textContent = status; });
