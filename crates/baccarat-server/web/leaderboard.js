// The public leaderboard (NSW 15): each table's chip counts, highest first,
// with the marker and who is out, updated live from the tournament's
// WebSocket; at the end, the placings and prizes. Made for a screen on the
// casino floor: no sign-in, large type, nothing secret (the server's view
// withholds undisclosed forms and the round's shoe seed).

import { money, follow, esc, $ } from './common.js';

/** The tournament asked for (`?t=ID`), or none: the page then lists the
 * tournaments to choose from rather than following one that may not exist
 * (issue 49: without `?t=` it showed "reconnecting" for ever). */
const id = Number(new URLSearchParams(location.search).get('t')) || null;

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

/** A tournament's state in words, for the list. */
function state(t) {
  if (t.cancelled) return 'cancelled';
  if (t.finished) return 'finished';
  if (t.started) return 'in play';
  return `starts ${t.starts}`;
}

/** Every tournament, each a link to its leaderboard; `why` says why the
 * list is shown instead of a board. */
async function listAll(why) {
  $('#b-name').textContent = 'Tournaments';
  $('#b-round').textContent = why;
  $('#conn').dataset.state = 'idle';
  let all = [];
  try {
    const r = await fetch('/api/tournaments');
    if (r.ok) all = await r.json();
  } catch (e) { console.error(e); }
  $('#b-tables').innerHTML = all.length
    ? `<ul class="board-list" data-testid="b-list">${all.map((t) => `<li data-testid="b-list-${t.tournament}">
        <a href="/leaderboard?t=${t.tournament}">${esc(t.name)}</a>
        <span class="sub">${esc(state(t))}; ${t.entrants} entered; prize pool ${money(t.pool)}</span></li>`).join('')}</ul>`
    : '<p class="sub" data-testid="b-list-empty">No tournament yet.</p>';
}

async function start() {
  if (id === null) return listAll('Choose a tournament to follow its leaderboard.');
  const r = await fetch(`/api/tournaments/${id}`).catch(() => null);
  if (r && r.status === 404) return listAll(`There is no tournament ${id}.`);
  follow(`/api/tournaments/${id}/ws`, render, (status) => { $('#conn').dataset.state = status; $('#conn').textContent = status; });
}

start();
