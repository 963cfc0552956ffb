// The pit console: card entry, typed or scanned, queued and sent one at a
// time in order; a mistyped card holds the queue and is corrected in place.
//
// The queue and the log are kept in the tab's session storage as they
// change (issue 49: a reload dropped the cards typed after a mistake without
// a word). A reload finds them HELD, never sent by itself: the table may have
// moved on meanwhile, so the dealer checks the cards shown, then corrects,
// sends or discards them, and sees how many wait.

import { api, ApiError, esc, $ } from '/assets/common.js';
import { POS_LABEL, cardText, clearError, parseCard, renderInto, say, showError, state } from '/assets/pit-base.js';
import { renderDeal, scheduleRefresh } from '/assets/pit.js';

// ---------------------------------------------------------------------------
// Card entry: typed or scanned, queued, sent one at a time in order

const cardQueue = []; // { n, card, table }
const cardLog = []; // { n, card, status, position }
let entryNo = 0;
let pumping = false;
let queueHold = null; // { message } while sending is paused

export function onCardSubmit(ev) {
  ev.preventDefault();
  const input = $('#card-input');
  const text = input.value;
  input.value = '';
  const tokens = text.split(/[\s,;]+/).filter(Boolean);
  if (!tokens.length) return;
  const items = tokens.map((tok) => ({ n: ++entryNo, card: parseCard(tok), raw: tok, table: state.tableId }));
  for (const item of items) cardLog.push({ n: item.n, card: item.card || item.raw, status: item.card ? 'queued' : 'invalid' });
  // Kept in order: an entry that is not a card holds the ones after it.
  cardQueue.push(...items);
  while (cardLog.length > 14) cardLog.shift();
  renderQueue();
  pump();
}

/** The card an entry that was not a card should have been: it goes first. */
export function onHoldFix(ev) {
  ev.preventDefault();
  const input = $('#card-fix');
  const card = parseCard(input.value);
  if (!card) {
    $('#hold-msg').textContent = `“${input.value}” is not a card either: write the rank then the suit, e.g. 9H or 10S.`;
    input.focus();
    return;
  }
  input.value = '';
  const item = { n: ++entryNo, card, raw: card, table: state.tableId };
  cardLog.push({ n: item.n, card, status: 'queued' });
  cardQueue.unshift(item);
  queueHold = null;
  clearError();
  renderQueue();
  $('#card-input').focus();
  pump();
}

/** Paused sending: send the queued cards after all (the one held skipped). */
export function holdSend() {
  queueHold = null;
  clearError();
  $('#card-input').focus();
  renderQueue();
  pump();
}

/** Paused sending: discard the queued cards, none of them sent. */
export function holdDiscard() {
  for (const item of cardQueue.splice(0)) setLog(item, 'discarded');
  queueHold = null;
  clearError();
  renderQueue();
  say('The queued cards were discarded; none of them was sent.');
  $('#card-input').focus();
}

function setLog(item, status, position) {
  const l = cardLog.find((x) => x.n === item.n);
  if (l) {
    l.status = status;
    if (position) l.position = position;
  }
}

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (cardQueue.length && !queueHold) {
      const item = cardQueue[0];
      if (!item.card) {
        cardQueue.shift();
        setLog(item, 'invalid');
        queueHold = {
          replace: true,
          message: `“${item.raw}” is not a card (write the rank, A, 2-10 or T, J, Q, K, then the suit, C, D, H or S). Sending is paused so that the cards stay in order: give the card it should have been and it is sent first, before any queued after it.`,
        };
        // Corrected in place: the field for the right card takes the focus,
        // beside the message (no second banner that outlives the fix).
        renderQueue();
        // In the middle of the screen, not half under its bottom edge.
        const fix = $('#card-fix');
        fix.scrollIntoView({ block: 'center' });
        fix.focus();
        break;
      }
      setLog(item, 'sending');
      renderQueue();
      const r = await sendCard(item);
      if (r === 'retry') continue;
      cardQueue.shift();
      renderQueue();
    }
  } finally {
    pumping = false;
    renderQueue();
  }
}

/** Send one card; 'retry' after a rate limit (the table never saw it). */
async function sendCard(item) {
  let before = null;
  try {
    // Where it goes: the position due just before it is sent (the engine places it).
    before = await api(`/api/tables/${item.table}`);
    await api(`/api/tables/${item.table}/commands`, {
      method: 'POST', body: { command: 'card_in', card: item.card, to: null, face_up: true },
    });
  } catch (e) {
    if (e instanceof ApiError && e.status === 429) {
      await new Promise((res) => setTimeout(res, Math.max(50, (e.body && e.body.retry_after_ms) || 200)));
      return 'retry';
    }
    if (e instanceof ApiError && e.status === 401) {
      setLog(item, 'unknown');
      queueHold = { message: 'Your session has ended; sign in again. The cards still queued were not sent.' };
      return 'stop';
    }
    if (e instanceof ApiError && e.status === 0) {
      setLog(item, 'unknown');
      queueHold = { message: `The connection failed while sending ${cardText(item.card)}: it may or may not have reached the table. Check the cards shown before sending the rest.` };
      return 'stop';
    }
    setLog(item, 'refused');
    queueHold = { message: `${cardText(item.card)} was refused: ${e.message}`, error: e };
    if (item.table === state.tableId) showError(e);
    return 'stop';
  }
  const pos = before && before.due;
  setLog(item, 'done', pos);
  if (item.table === state.tableId && before) {
    // Remember where the card went even if the coup closes with it.
    if (state.coupCards.coup !== before.coup) state.coupCards = { coup: before.coup, cards: Object.fromEntries(before.cards) };
    if (pos && !state.coupCards.cards[pos]) state.coupCards.cards[pos] = item.card;
    renderDeal();
    scheduleRefresh();
  }
  return 'done';
}

/** Where the queue and the log are kept across a reload of this tab. */
const SAVED = 'pit.cards';

function save() {
  if (!cardQueue.length && !queueHold && !cardLog.length) {
    sessionStorage.removeItem(SAVED);
    return;
  }
  const items = cardQueue.map(({ n, card, raw, table }) => ({ n, card, raw, table }));
  sessionStorage.setItem(SAVED, JSON.stringify({ items, log: cardLog, replace: !!(queueHold && queueHold.replace) }));
}

/** After a reload: the cards that were waiting at table `table`, held (see
 * the module's notes), with the log as it was. */
export function restoreQueue(table) {
  if (cardQueue.length || queueHold || cardLog.length) return;
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(SAVED) || 'null');
  } catch {
    saved = null;
  }
  if (!saved) return;
  cardLog.push(...(saved.log || []).map((l) => ({ ...l, status: l.status === 'sending' ? 'unknown' : l.status })));
  const items = (saved.items || []).filter((i) => i.table === table);
  // Each keeps its number, so that its line in the log follows it.
  for (const i of items) cardQueue.push({ n: i.n, card: i.card ? parseCard(i.card) : null, raw: i.raw, table });
  entryNo = [...cardLog, ...cardQueue].reduce((m, x) => Math.max(m, x.n || 0), 0);
  if (items.length || saved.replace) {
    const n = items.length;
    const fix = saved.replace ? 'give the card the mistyped one should have been, or ' : '';
    queueHold = {
      replace: !!saved.replace,
      message: `${n} card${n === 1 ? '' : 's'} typed before this page was reloaded ${n === 1 ? 'is' : 'are'} kept here, not sent: check the cards on the table, then ${fix}send or discard ${n === 1 ? 'it' : 'them'}.`,
    };
  }
  renderQueue();
  if (queueHold && queueHold.replace) {
    const field = $('#card-fix');
    field.scrollIntoView({ block: 'center' });
    field.focus();
  }
}

function renderQueue() {
  save();
  const el = $('#card-queue');
  const pending = cardQueue.length;
  el.dataset.pending = String(pending);
  el.dataset.held = queueHold ? 'true' : 'false';
  renderInto(el, pending ? `<p>${pending} card${pending === 1 ? '' : 's'} ${queueHold ? 'held' : 'waiting to be sent…'}</p>` : '');
  const hold = $('#hold-form');
  hold.hidden = !queueHold;
  if (queueHold) {
    $('#hold-msg').textContent = queueHold.message;
    $('#hold-fix-row').hidden = !queueHold.replace;
    const send = hold.querySelector('[data-act="hold-send"]');
    send.textContent = pending ? (queueHold.replace ? `Skip it, send the ${pending} queued` : `Send the ${pending} queued`) : (queueHold.replace ? 'Skip it' : 'Carry on');
    hold.querySelector('[data-act="hold-discard"]').hidden = !pending;
  }
  const statusWords = { queued: 'queued', sending: 'sending', done: '✓', refused: 'refused', unknown: 'not confirmed', invalid: 'not a card', discarded: 'discarded' };
  renderInto($('#card-log'), cardLog.slice().reverse().map((l) => `<li data-status="${l.status}" data-card="${esc(l.card)}">${esc(parseCard(l.card) ? cardText(l.card) : l.card)}${l.position ? ` → ${esc(POS_LABEL[l.position])}` : ''} <span class="muted">${statusWords[l.status] || l.status}</span></li>`).join(''));
}
