// The back office (`/admin`): people, tables, the cage and the day's books,
// for the admin. The inspector reads people, tables and the books, and is
// given no control that changes anything (the server refuses them anyway):
// those controls are taken out of the page, not hidden. Plain ES modules,
// no build step, no markup made from data; each section is its own file
// (admin-people.js, admin-tables.js with admin-table-form.js, admin-cage.js,
// admin-books.js) over admin-base.js.

import { api, auth, logout } from '/assets/common.js';
import { language, languages, setLanguage, tr, useSavedLanguage } from '/assets/i18n.js';
import { $, canChange, el, fill, hooks, roleWords, say, setupDialog, showError, signInWith, state } from '/assets/admin-base.js';
import * as people from '/assets/admin-people.js';
import * as tables from '/assets/admin-tables.js';
import * as tableForm from '/assets/admin-table-form.js';
import * as cage from '/assets/admin-cage.js';
import * as books from '/assets/admin-books.js';

/** The sections, by the name in the address (`/admin#tables`). */
const SECTIONS = { people, tables, cage, books };

/** Who this page is for: the admin, and the inspector, who reads. */
const ROLES = ['admin', 'inspector'];

/** Set when the session ended under the page, which then starts afresh. */
const ENDED = 'baccarat.admin.ended';

async function start() {
  languageSwitch();
  setupDialog();
  hooks.expired = expired;
  $('#login-form').addEventListener('submit', onLogin);
  $('#logout').addEventListener('click', onLogout);
  window.addEventListener('hashchange', showSection);
  document.addEventListener('languagechange', redraw);
  const me = await api('/api/me').catch(() => null);
  if (me && ROLES.includes(me.role)) {
    state.user = { id: me.user, name: me.name, role: me.role };
    auth.set(state.user);
    await enter();
  } else {
    showLogin();
  }
}

function languageSwitch() {
  const select = $('#lang');
  fill(select, languages().map(([tag, name]) => el('option', { value: tag, lang: tag }, name)));
  useSavedLanguage();
  select.value = language();
  select.addEventListener('change', () => setLanguage(select.value));
}

function showLogin() {
  $('#login-view').hidden = false;
  $('#tabs').hidden = true;
  $('#logout').hidden = true;
  for (const v of document.querySelectorAll('.view')) v.hidden = true;
  if (sessionStorage.getItem(ENDED)) {
    sessionStorage.removeItem(ENDED);
    $('#login-error').textContent = tr('session.ended');
  }
  $('#login-name').focus();
}

async function onLogin(ev) {
  ev.preventDefault();
  await signInWith(ROLES, async (user) => {
    state.user = user;
    await enter();
  }, 'admin.not_for_role');
}

/** Sign out, and start the page afresh (its controls as they were served). */
async function onLogout() {
  await logout();
  location.reload();
}

function expired() {
  sessionStorage.setItem(ENDED, '1');
  auth.clear();
  location.reload();
}

/** Into the back office: the controls the person may use, then a section. */
async function enter() {
  $('#login-view').hidden = true;
  if (!canChange()) for (const e of document.querySelectorAll('[data-change]')) e.remove();
  $('#tabs').hidden = false;
  $('#logout').hidden = false;
  document.body.dataset.role = state.user.role;
  renderWho();
  people.init();
  cage.init();
  books.init();
  if (!canChange()) say(tr('admin.read_only_note'));
  showSection();
  await tableForm.init().catch(showError);
}

function renderWho() {
  const u = state.user;
  fill($('#who'), tr('admin.signed_in'), ' ', el('strong', {}, u.name), ' ',
    el('span', { class: 'badge role', testid: 'who-role' }, roleWords(u.role)),
    canChange() ? null : [' ', el('span', { class: 'badge read', testid: 'read-only' }, tr('admin.read_only'))]);
}

/** The section shown: none until signed in. */
let shown = null;

/** The section the address names (else the one shown, else the first: the
 * skip link's `#main` names none, nor does a section this person does not
 * have), drawn afresh from the server. */
function showSection() {
  if (!state.user) return;
  const asked = location.hash.slice(1);
  const name = asked in SECTIONS && document.querySelector(`.view[data-view="${asked}"]`) ? asked : shown || 'people';
  shown = name;
  for (const v of document.querySelectorAll('.view')) v.hidden = v.dataset.view !== name;
  for (const a of document.querySelectorAll('#tabs a')) {
    if (a.dataset.tab === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  SECTIONS[name].load().catch(showError);
}

/** The page in another language: what the scripts wrote, again. */
function redraw() {
  if (!state.user) return;
  renderWho();
  people.redraw();
  tables.render();
  cage.render();
  books.render();
  tableForm.redraw();
}

start();
