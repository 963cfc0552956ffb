// Responsible-gaming tools on the player's page: a session clock, a reality
// check every N minutes, and the player's own limits (a loss limit and a
// play-time limit per day, and a cool-off). The limits are the server's: it
// refuses any wager past them (`casino/self_limits.rs`); this page only sets
// and shows them. The session clock and the reality check are this device's:
// the session starts at sign-in (kept for the browser tab in sessionStorage),
// and the check's interval is a setting kept in localStorage.

import { api, money, parseMoney, esc, $ } from '/assets/common.js';
import { tr } from '/assets/i18n.js';

const START = 'baccarat.session.start';
const START_BALANCE = 'baccarat.session.balance';
const CHECK = 'baccarat.reality.minutes';
const CHECKED = 'baccarat.reality.last';

/** The session's start (ms), set at sign-in; a tab opened later starts now. */
export function sessionStart() {
  let at = Number(sessionStorage.getItem(START));
  if (!at) {
    at = Date.now();
    sessionStorage.setItem(START, String(at));
  }
  return at;
}

/** A new session: at sign-in, with the balance it starts from. */
export function startSession(balance) {
  sessionStorage.setItem(START, String(Date.now()));
  sessionStorage.setItem(START_BALANCE, String(balance ?? ''));
  sessionStorage.removeItem(CHECKED);
}

export function endSession() {
  for (const k of [START, START_BALANCE, CHECKED]) sessionStorage.removeItem(k);
}

/** Minutes between reality checks: 0 is off; the default is 60. */
function checkEvery() {
  const v = localStorage.getItem(CHECK);
  return v === null ? 60 : Number(v);
}

function clockText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${m}:${sec}` : `${m}:${sec}`;
}

function utcTime(ms) {
  const d = new Date(ms);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

let balanceNow = null;

/** The page's balance, for the reality check's "since you signed in". */
export function noteBalance(minor) {
  balanceNow = minor === '' || minor === null || minor === undefined ? null : Number(minor);
  if (sessionStorage.getItem(START_BALANCE) === '' && balanceNow !== null) {
    sessionStorage.setItem(START_BALANCE, String(balanceNow));
  }
}

// ---------------------------------------------------------------------------
// The session clock and the reality check, once a second.

function tick() {
  const el = $('#session-clock');
  if (!el || $('#who').hidden) return;
  const start = sessionStart();
  const played = Date.now() - start;
  el.textContent = tr('session.clock', { time: clockText(played) });
  el.dataset.ms = String(played);
  const every = checkEvery();
  if (!every || $('#reality-dialog').open) return;
  const last = Number(sessionStorage.getItem(CHECKED)) || start;
  if (Date.now() - last >= every * 60_000) realityCheck(played);
}

function realityCheck(played) {
  sessionStorage.setItem(CHECKED, String(Date.now()));
  const minutes = Math.floor(played / 60_000);
  const from = Number(sessionStorage.getItem(START_BALANCE));
  const known = sessionStorage.getItem(START_BALANCE) !== '' && balanceNow !== null && Number.isFinite(from);
  const net = known ? balanceNow - from : null;
  const figures = { from: money(from), now: money(balanceNow) };
  $('#reality-text').textContent = tr('reality.played', { minutes })
    + (net === null ? ''
      : net > 0 ? tr('reality.up', { net: money(net), ...figures })
        : net < 0 ? tr('reality.down', { net: money(-net), ...figures })
          : tr('reality.even', figures));
  $('#reality-dialog').showModal();
  $('#reality-continue').focus();
}

// ---------------------------------------------------------------------------
// The limits dialog

function limitsText(v) {
  const parts = [];
  const t = v.today;
  if (v.cool_off_until_ms) parts.push(tr('limits.break_until', { time: utcTime(v.cool_off_until_ms) }));
  if (v.loss_per_day !== null) {
    parts.push(tr('limits.loss_now', { limit: money(v.loss_per_day), lost: money(t.lost), left: money(t.loss_left) }));
  } else {
    parts.push(tr('limits.no_loss'));
  }
  if (v.minutes_per_day !== null) {
    const m = { minutes: v.minutes_per_day, left: t.minutes_left };
    parts.push(t.first_wager_ms ? tr('limits.minutes_since', { ...m, time: utcTime(t.first_wager_ms) }) : tr('limits.minutes_now', m));
  } else {
    parts.push(tr('limits.no_minutes'));
  }
  const later = (l, key, fmt) => l && parts.push(tr(key, { value: l.value === null ? tr('limits.none_value') : fmt(l.value), time: utcTime(l.at_ms) }));
  later(v.loss_per_day_later, 'limits.later_loss', money);
  later(v.minutes_per_day_later, 'limits.later_minutes', (m) => tr('limits.minutes_value', { m }));
  parts.push(tr('limits.day_ends', { time: utcTime(t.resets_at_ms) }));
  return parts;
}

function showLimits(v) {
  $('#limits-status').innerHTML = limitsText(v).map((p) => `<li>${esc(p)}</li>`).join('');
  $('#limit-loss').value = v.loss_per_day === null ? '' : (v.loss_per_day / 100).toFixed(2);
  $('#limit-minutes').value = v.minutes_per_day === null ? '' : String(v.minutes_per_day);
}

function say(text, kind = 'info') {
  const el = $('#limits-message');
  el.textContent = text;
  el.dataset.kind = kind;
}

async function openLimits() {
  say('');
  $('#reality-every').value = String(checkEvery());
  $('#limits-dialog').showModal();
  try {
    showLimits(await api('/api/me/limits'));
  } catch (e) {
    say(e.message, 'error');
  }
}

async function saveLimits(ev) {
  ev.preventDefault();
  const lossText = $('#limit-loss').value.trim();
  const minutesText = $('#limit-minutes').value.trim();
  const loss = lossText === '' ? null : parseMoney(lossText);
  if (lossText !== '' && (loss === null || loss <= 0)) return say(tr('limits.bad_loss'), 'error');
  const minutes = minutesText === '' ? null : Number(minutesText);
  if (minutesText !== '' && !(Number.isInteger(minutes) && minutes >= 1 && minutes <= 1440)) {
    return say(tr('limits.bad_minutes'), 'error');
  }
  localStorage.setItem(CHECK, $('#reality-every').value);
  try {
    const v = await api('/api/me/limits', { method: 'POST', body: { loss_per_day: loss, minutes_per_day: minutes } });
    showLimits(v);
    say(tr('limits.saved'));
  } catch (e) {
    say(e.message, 'error');
  }
}

let coolArmed = null;

async function coolOff() {
  const hours = Number($('#cool-hours').value);
  const btn = $('#btn-cool-off');
  if (!coolArmed) {
    btn.textContent = tr('cool.armed');
    coolArmed = setTimeout(() => { coolArmed = null; btn.textContent = tr('cool.button'); }, 5000);
    return;
  }
  clearTimeout(coolArmed);
  coolArmed = null;
  btn.textContent = tr('cool.button');
  try {
    const v = await api('/api/me/cool-off', { method: 'POST', body: { hours } });
    showLimits(v);
    say(tr('cool.started', { time: utcTime(v.cool_off_until_ms) }));
  } catch (e) {
    say(e.message, 'error');
  }
}

/** Wire the header's button, the dialogs and the clock (once). */
export function setUpLimits({ onLeave }) {
  $('#btn-limits').addEventListener('click', openLimits);
  $('#limits-form').addEventListener('submit', saveLimits);
  $('#btn-cool-off').addEventListener('click', coolOff);
  $('#limits-close').addEventListener('click', () => $('#limits-dialog').close());
  $('#reality-every').addEventListener('change', () => localStorage.setItem(CHECK, $('#reality-every').value));
  $('#reality-continue').addEventListener('click', () => $('#reality-dialog').close());
  $('#reality-leave').addEventListener('click', () => { $('#reality-dialog').close(); onLeave(); });
  $('#reality-limits').addEventListener('click', () => { $('#reality-dialog').close(); openLimits(); });
  setInterval(tick, 1000);
  tick();
}
