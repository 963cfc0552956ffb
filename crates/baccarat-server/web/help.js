// A table's help page (`/help?table=N`): what it offers and pays, the house
// edge of each wager from the exact odds of its shoe, its limits, and its
// rulebook's rules in the rulebook's own words with their citations (all
// from the server: `GET /api/tables/{id}/help`; this file quotes no rule).

import { BASE, esc, money, words, dealingWords, paysWords, $ } from './common.js';
import { tr, useSavedLanguage } from './i18n.js';


async function load() {
  const id = Number(new URLSearchParams(location.search).get('table')) || 1;
  const r = await fetch(`${BASE}/api/tables/${id}/help`);
  if (!r.ok) {
    $('#h-sub').textContent = tr('help.no_table', { id });
    return;
  }
  const h = await r.json();
  document.title = tr('help.title_table', { name: h.name });
  $('#h-title').textContent = tr('help.title_table', { name: h.name });
  $('#h-sub').textContent = tr('help.sub', { rulebook: h.rulebook_title, variant: h.variant, decks: h.decks });
  const facts = [
    [tr('help.f_rulebook'), h.rulebook_title],
    [tr('help.f_game'), h.variant],
    [tr('help.f_cards'), tr(h.mode === 'rng' ? 'help.cards_rng' : 'help.cards_live', { decks: h.decks })],
    [tr('help.f_dealing'), dealingWords(h.dealing)],
    [tr('help.f_min'), money(h.min)],
    [tr('help.f_max'), money(h.max)],
    [tr('help.f_chip'), money(h.chip)],
  ];
  if (h.differential !== null) facts.push([tr('help.f_diff'), money(h.differential)]);
  $('#h-facts').innerHTML = facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('');
  $('#h-wagers').innerHTML = h.offers.map((o) => `
    <tr data-testid="help-${esc(o.bet)}" data-edge="${esc(o.house_edge || '')}">
      <th scope="row">${esc(words(o.name))}</th>
      <td>${o.lines.map((l) => `<div>${esc(words(l.outcome))}: ${esc(paysWords(l.pays))}</div>`).join('')}<div class="sub">${esc(o.rule)}</div></td>
      <td>${esc(money(o.min))}–${esc(money(o.max))}</td>
      <td class="edge">${o.house_edge ? esc(o.house_edge) : `<span class="sub">${esc(o.not_priced || '')}</span>`}</td>
      <td>${o.outcomes.map((x) => `<div>${esc(words(x.outcome))}${x.pays === 'lose' ? '' : ` (${esc(paidAs(o, x))})`}: ${esc(x.probability)}</div>`).join('')}</td>
    </tr>`).join('');
  $('#h-settlement').textContent = settlementWords(h);
  $('#h-rules').innerHTML = h.rules.map((x) => `<details><summary>${esc(x.cite)}</summary><p>${esc(x.quote)}</p></details>`).join('');
  document.body.dataset.ready = 'true';
}

/** An outcome's odds in its pay table's words (the exact odds name them as a
 * ratio: "19:20" for an AU Banker win its pay table prints "1:1 less 5%"). */
function paidAs(o, x) {
  const line = o.lines.find((l) => l.outcome === x.outcome);
  return paysWords(line ? line.pays : x.pays);
}

/** How the table pays a win that is not a whole number of chips, and a
 * commission wager that could not be paid exactly, with the rule (NSW 5.8;
 * AU 5.12-5.13; a silent rulebook's assumption as its profile states it). */
function settlementWords(h) {
  const s = h.settlement;
  const chip = money(h.chip);
  const fraction = tr(s.fractional === 'up_to_chip' ? 'help.round_up' : 'help.round_down', { chip });
  const unpayable = s.unpayable === 'void_excess' ? ` ${tr('help.unpayable_void', { chip })}` : '';
  return `${fraction}${unpayable} (${s.rule})`;
}

useSavedLanguage();
load();
