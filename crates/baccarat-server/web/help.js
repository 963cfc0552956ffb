// A table's help page (`/help?table=N`): what it offers and pays, the house
// edge of each wager from the exact odds of its shoe, its limits, and its
// rulebook's rules in the rulebook's own words with their citations (all
// from the server: `GET /api/tables/{id}/help`; this file quotes no rule).

import { esc, money, words, $ } from './common.js';


async function load() {
  const id = Number(new URLSearchParams(location.search).get('table')) || 1;
  const r = await fetch(`/api/tables/${id}/help`);
  if (!r.ok) {
    $('#h-sub').textContent = `There is no table ${id}.`;
    return;
  }
  const h = await r.json();
  document.title = `${h.name}: rules and odds`;
  $('#h-title').textContent = `${h.name}: rules and odds`;
  $('#h-sub').textContent = `${h.rulebook_title} · ${h.variant} · ${h.decks} decks`;
  const facts = [
    ['Rulebook', h.rulebook_title],
    ['Game', h.variant],
    ['Cards', `${h.decks} decks, ${h.mode === 'rng' ? 'shuffled by the server’s random number generator' : 'dealt live'}`],
    ['Dealing', words(h.dealing)],
    ['Table minimum', money(h.min)],
    ['Table maximum', money(h.max)],
    ['Chip unit', money(h.chip)],
  ];
  if (h.differential !== null) facts.push(['Differential (Banker against Player)', money(h.differential)]);
  $('#h-facts').innerHTML = facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('');
  $('#h-wagers').innerHTML = h.offers.map((o) => `
    <tr data-testid="help-${esc(o.bet)}" data-edge="${esc(o.house_edge || '')}">
      <th scope="row">${esc(words(o.name))}</th>
      <td>${o.lines.map((l) => `<div>${esc(words(l.outcome))}: ${esc(l.pays)}</div>`).join('')}<div class="sub">${esc(o.rule)}</div></td>
      <td>${esc(money(o.min))}–${esc(money(o.max))}</td>
      <td class="edge">${o.house_edge ? esc(o.house_edge) : `<span class="sub">${esc(o.not_priced || '')}</span>`}</td>
      <td>${o.outcomes.map((x) => `<div>${esc(words(x.outcome))}${x.pays === 'lose' ? '' : ` (${esc(x.pays)})`}: ${esc(x.probability)}</div>`).join('')}</td>
    </tr>`).join('');
  $('#h-rules').innerHTML = h.rules.map((x) => `<details><summary>${esc(x.cite)}</summary><p>${esc(x.quote)}</p></details>`).join('');
  document.body.dataset.ready = 'true';
}

load();
