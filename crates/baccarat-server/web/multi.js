// Several tables at once (issue 49, item 6): up to four tables' pages side
// by side, each the player's own table page (`/#table=N`) in a frame of
// this origin, so each keeps its own socket, bets and notices exactly as it
// does alone, and the session cookie signs every one in. The tables chosen
// are in the address (`/multi#tables=1,3`), so a reload or a bookmark keeps
// them; with none chosen, the first open tables are shown.
//
// Frames: the server allows framing by its own pages only
// (`frame-ancestors 'self'`, `X-Frame-Options: SAMEORIGIN`).
//
// Signed out, each frame would show a sign-in form of its own, four forms
// for one player: the page asks who is signed in first, shows one sign-in
// if no one is, and loads the frames once someone is. The frames share the
// page's session storage (same origin, same tab), so they open signed in.

import { BASE, api, auth, esc, login, $ } from './common.js';
import { tr, useSavedLanguage } from './i18n.js';

/** At most this many tables at once: a desktop's screen in quarters. */
export const MAX_TABLES = 4;

/** The tables named in the address: distinct ids, at most four, in order. */
export function chosen(hash) {
  const m = /tables=([0-9,]*)/.exec(hash || '');
  if (!m) return [];
  const ids = m[1].split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
  return [...new Set(ids)].slice(0, MAX_TABLES);
}

function frame(t) {
  const title = tr('multi.frame', { name: t.name });
  return `<iframe class="multi-frame" src="${BASE}/#table=${t.id}" title="${esc(title)}" data-testid="multi-frame-${t.id}"></iframe>`;
}

function box(t, on) {
  return `<label class="multi-choice"><input type="checkbox" value="${t.id}" data-testid="multi-choose-${t.id}"${on ? ' checked' : ''}> ${esc(t.name)}</label>`;
}

/** Show `ids` (of `tables`): the choices, and a frame for each. Frames of
 * tables still chosen are kept, so their sockets and bets carry on. */
function show(tables, ids) {
  const open = tables.filter((t) => ids.includes(t.id));
  $('#m-pick').innerHTML = tables.map((t) => box(t, ids.includes(t.id))).join('');
  for (const input of document.querySelectorAll('#m-pick input')) {
    input.disabled = !input.checked && ids.length >= MAX_TABLES;
  }
  const grid = $('#main');
  for (const f of [...grid.querySelectorAll('iframe')]) {
    if (!ids.includes(Number(f.dataset.testid.split('-').pop()))) f.remove();
  }
  for (const t of open) {
    if (!grid.querySelector(`[data-testid="multi-frame-${t.id}"]`)) grid.insertAdjacentHTML('beforeend', frame(t));
  }
  grid.dataset.count = String(open.length);
}

/** Whether someone is signed in: the session cookie, as the server reads
 * it. A session from another tab (a cookie, no record in this tab's
 * storage) is recorded here, for the frames' pages to find. */
async function signedIn() {
  try {
    const me = await api('/api/me');
    auth.set({ id: me.user, name: me.name, role: me.role });
    return true;
  } catch (e) {
    if (e.status !== 401) throw e;
    auth.clear();
    return false;
  }
}

/** The page's one sign-in form; resolves once the player is signed in. */
function signIn() {
  $('#m-login').hidden = false;
  $('#login-name').focus();
  return new Promise((resolve) => {
    $('#login-form').addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const [name, password, err] = [$('#login-name').value.trim(), $('#login-password').value, $('#login-error')];
      err.textContent = '';
      if (!name || !password) {
        err.textContent = tr('login.missing');
        return;
      }
      const button = ev.target.querySelector('button[type=submit]');
      button.disabled = true;
      try {
        await login(name, password);
        $('#m-login').remove();
        resolve();
      } catch (e) {
        err.textContent = e.status === 401 || e.status === 403 ? tr('login.wrong') : e.message;
      } finally {
        button.disabled = false;
      }
    });
  });
}

async function main() {
  await useSavedLanguage();
  if (!(await signedIn())) await signIn();
  $('.multi-pick').hidden = false;
  const r = await api('/api/tables');
  const tables = r.tables.filter((t) => !t.closed);
  const known = (ids) => ids.filter((id) => tables.some((t) => t.id === id));
  let ids = known(chosen(location.hash));
  if (!ids.length) ids = tables.filter((t) => t.open).slice(0, MAX_TABLES).map((t) => t.id);
  show(tables, ids);
  $('#m-pick').addEventListener('change', () => {
    ids = [...document.querySelectorAll('#m-pick input:checked')].map((i) => Number(i.value)).slice(0, MAX_TABLES);
    history.replaceState(null, '', `#tables=${ids.join(',')}`);
    show(tables, ids);
  });
}

main().catch((e) => {
  $('#main').innerHTML = `<p class="error" role="alert">${esc(e.message)}</p>`;
});
