// The back office's people: the list (by role, by a piece of the name, a
// page at a time), and for the admin a new person of any role, and per
// person disable or enable, a new password, another role (`/api/users`).
// The server checks everything again (the last admin is neither disabled
// nor demoted); this page only asks.

import { tr } from '/assets/i18n.js';
import {
  $, ROLES, ask, call, canChange, el, errorText, fill, options, post, roleWords, say,
} from '/assets/admin-base.js';

/** People on one page of the list. */
const PAGE = 50;

/** The list as last asked: its filter, the `after` of each page so far, the next page's. */
const list = { role: '', q: '', afters: [null], next: null, users: [] };

export function init() {
  labels();
  $('#people-filter').addEventListener('submit', (ev) => { ev.preventDefault(); search(); });
  $('#people-first').addEventListener('click', () => { list.afters = [null]; load(); });
  $('#people-next').addEventListener('click', () => { list.afters.push(list.next); load(); });
  if (canChange()) $('#user-form').addEventListener('submit', onCreate);
}

/** The role choices in the page's language, keeping what was chosen. */
function labels() {
  const roles = ROLES.map((r) => [r, roleWords(r)]);
  fill($('#people-role'), options([['', tr('admin.people.any_role')], ...roles], $('#people-role').value));
  if (canChange()) fill($('#user-role'), options(roles, $('#user-role').value || 'player'));
}

/** Everything this section wrote, in the page's language. */
export function redraw() {
  labels();
  render();
}

function search() {
  list.role = $('#people-role').value;
  list.q = $('#people-q').value.trim();
  list.afters = [null];
  return load();
}

/** The current page of the list, from the server. */
export async function load() {
  const after = list.afters[list.afters.length - 1];
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (list.role) q.set('role', list.role);
  if (list.q) q.set('q', list.q);
  if (after !== null) q.set('after', String(after));
  const r = await call(`/api/users?${q}`);
  list.users = r.users;
  list.next = r.next;
  render();
}

/** Draw the list as last loaded (also when the language changes). */
export function render() {
  const rows = list.users.map(row);
  fill($('#people-rows'), rows.length ? rows : el('tr', {}, el('td', { colspan: 5, class: 'muted' }, tr('admin.people.none'))));
  $('#people-first').disabled = list.afters.length === 1;
  $('#people-next').disabled = list.next === null || list.next === undefined;
  $('#people-page').textContent = tr('admin.page.n', { n: list.afters.length });
}

function row(u) {
  const status = u.disabled ? tr('admin.people.disabled') : tr('admin.people.enabled');
  return el('tr', { testid: `user-${u.id}`, data: { name: u.name, role: u.role, disabled: String(u.disabled) } },
    el('td', { class: 'num' }, String(u.id)),
    el('td', {}, u.name),
    el('td', {}, roleWords(u.role)),
    el('td', {}, el('span', { class: u.disabled ? 'badge off' : 'badge on' }, status)),
    canChange() ? el('td', {}, el('div', { class: 'acts' }, actions(u))) : null);
}

function actions(u) {
  const button = (act, label, onClick, cls) => el('button', {
    type: 'button', class: cls || 'secondary', testid: `user-${act}-${u.id}`,
    'aria-label': `${label}: ${u.name}`, on: { click: onClick },
  }, label);
  return [
    u.disabled
      ? button('enable', tr('admin.people.enable'), () => toggle(u, false))
      : button('disable', tr('admin.people.disable'), () => toggle(u, true), 'danger'),
    button('password', tr('admin.people.reset'), () => resetPassword(u)),
    button('role', tr('admin.people.change_role'), () => changeRole(u)),
  ];
}

// ---------------------------------------------------------------------------
// Changes (the admin's)

async function onCreate(ev) {
  ev.preventDefault();
  const out = $('#user-error');
  out.textContent = '';
  const name = $('#user-name').value.trim();
  const role = $('#user-role').value;
  const password = $('#user-password').value;
  if (!name) { out.textContent = tr('admin.people.need_name'); return; }
  if ([...password].length < 4) { out.textContent = tr('admin.people.short_password'); return; }
  try {
    const r = await post('/api/users', { name, role, password });
    say(tr('admin.people.created', { name: r.name, role: roleWords(r.role), id: r.id }));
    $('#user-name').value = '';
    $('#user-password').value = '';
    await load();
  } catch (e) {
    out.textContent = errorText(e);
  }
}

function toggle(u, disable) {
  const act = disable ? 'disable' : 'enable';
  const words = disable
    ? { title: tr('admin.people.disable_title', { name: u.name }), intro: tr('admin.people.disable_intro'), confirm: tr('admin.people.disable') }
    : { title: tr('admin.people.enable_title', { name: u.name }), intro: tr('admin.people.enable_intro'), confirm: tr('admin.people.enable') };
  ask({
    ...words,
    danger: disable,
    submit: async () => {
      const r = await post(`/api/users/${u.id}/${act}`);
      const done = disable ? 'admin.people.disabled_now' : 'admin.people.enabled_now';
      say(tr(done, { name: r.name, n: r.sessions_ended }));
      await load();
    },
  });
}

function resetPassword(u) {
  ask({
    title: tr('admin.people.reset_title', { name: u.name }),
    intro: tr('admin.people.reset_intro'),
    fields: [{ id: 'password', label: tr('admin.people.new_password'), type: 'password', help: tr('admin.people.password_help') }],
    confirm: tr('admin.people.reset'),
    submit: async ({ password }) => {
      const r = await post(`/api/users/${u.id}/password`, { password });
      say(tr('admin.people.reset_now', { name: u.name, n: r.sessions_ended }));
    },
  });
}

function changeRole(u) {
  ask({
    title: tr('admin.people.role_title', { name: u.name }),
    intro: tr('admin.people.role_intro'),
    fields: [{ id: 'role', label: tr('admin.people.role'), options: ROLES.map((r) => [r, roleWords(r)]), value: u.role }],
    confirm: tr('admin.people.change_role'),
    submit: async ({ role }) => {
      const r = await post(`/api/users/${u.id}/role`, { role });
      say(tr('admin.people.role_now', { name: r.name, role: roleWords(r.role) }));
      await load();
    },
  });
}
