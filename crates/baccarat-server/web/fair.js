// The provably-fair page (`/fair?table=N`): each shoe's commitment, its seed
// once the shoe has ended, a check in the browser that the seed's SHA-256 is
// the commitment, and the command that deals the shoe again from the seed.

import { BASE, esc, $ } from './common.js';
import { tr, useSavedLanguage } from './i18n.js';


/** Hex digits as bytes, or null. */
function bytes(hex) {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return null;
  return new Uint8Array(hex.match(/../g).map((b) => parseInt(b, 16)));
}

/** Whether `seed`'s SHA-256 is `commitment`: true, false, or null when this
 * browser cannot compute it (no Web Crypto outside a secure context). */
export async function seedMatches(seed, commitment) {
  const b = bytes(seed);
  if (!b) return false;
  if (!globalThis.crypto || !crypto.subtle) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', b));
  const hex = [...digest].map((x) => x.toString(16).padStart(2, '0')).join('');
  return hex === String(commitment).toLowerCase();
}

/** The command that deals the shoe again. */
export function command(shoe, decks) {
  const cut = shoe.cut ? ` --cut-at ${shoe.cut.at} --cutting-card ${shoe.cut.from_back}` : '';
  return `baccarat shoe --seed ${shoe.seed} --decks ${decks}${cut} --commitment ${shoe.commitment}`;
}

async function row(s, decks) {
  const head = `<th scope="row">${esc(s.shoe)}</th><td><code class="hash">${esc(s.commitment || tr('fair.none_commitment'))}</code></td>`;
  if (!s.commitment) return `<tr data-testid="fair-shoe-${esc(s.shoe)}" data-check="none">${head}<td>—</td><td>—</td></tr>`;
  if (!s.seed) {
    return `<tr data-testid="fair-shoe-${esc(s.shoe)}" data-check="pending">${head}<td>${esc(tr('fair.secret'))}</td><td>—</td></tr>`;
  }
  const ok = await seedMatches(s.seed, s.commitment);
  const verdict = ok === null ? ['unknown', tr('fair.unknown')]
    : ok ? ['match', tr('fair.match')] : ['mismatch', tr('fair.mismatch')];
  return `<tr data-testid="fair-shoe-${esc(s.shoe)}" data-check="${verdict[0]}">${head}
    <td><code class="hash">${esc(s.seed)}</code></td>
    <td><p class="verdict ${verdict[0]}">${esc(verdict[1])}</p>
      <p class="sub">${esc(tr('fair.again'))}</p><code class="cmd" data-testid="fair-command-${esc(s.shoe)}">${esc(command(s, decks))}</code></td></tr>`;
}

async function load() {
  const id = Number(new URLSearchParams(location.search).get('table')) || 1;
  const [t, list] = await Promise.all([
    fetch(`${BASE}/api/tables/${id}`).then((r) => (r.ok ? r.json() : null)),
    fetch(`${BASE}/api/tables/${id}/shoes`).then((r) => (r.ok ? r.json() : null)),
  ]);
  if (!t || !list) {
    $('#f-table').textContent = tr('fair.no_table', { id });
    return;
  }
  $('#f-table').textContent = tr('fair.table', { name: t.name, id: t.id, decks: t.decks });
  $('#f-algorithm').textContent = list.algorithm;
  const shoes = [...list.shoes].reverse();
  $('#f-shoes').innerHTML = shoes.length ? (await Promise.all(shoes.map((s) => row(s, t.decks)))).join('')
    : `<tr><td colspan="4">${esc(tr('fair.no_shoes'))}</td></tr>`;
  document.body.dataset.ready = 'true';
}

useSavedLanguage();
load();
