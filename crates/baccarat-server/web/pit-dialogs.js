// The pit console's dialogs: irregularities with the rule's own text,
// refusals, opening and closing, the minimum and the limits.

import { api, ApiError, money, parseMoney, esc, words, $ } from '/assets/common.js';
import { cardText, citeOf, clearError, clock, errorHtml, isLive, parseCard, parseCards, quoteHtml, ruleByKey, say, serverNow, spotWords, state } from '/assets/pit-base.js';
import { command, expired, loadTables, maxSeq, noticeMinutes, refreshNow, renderDeal, showOutcome } from '/assets/pit.js';

// ---------------------------------------------------------------------------
// Dialogs

let dlgOpener = null;
let dlgConfirm = null;
let dlgBusy = false;

export function setupDialog() {
  const dlg = $('#dialog');
  $('#dlg-cancel').addEventListener('click', () => dlg.close());
  dlg.addEventListener('close', () => {
    dlgConfirm = null;
    const opener = dlgOpener && document.contains(dlgOpener) && !dlgOpener.disabled ? dlgOpener : null;
    // The close event comes a task after close(): if the focus has already
    // gone somewhere else (the dealer clicked the card field), leave it there.
    const active = document.activeElement;
    if (active && active !== document.body && active !== opener && !dlg.contains(active)) return;
    // A card is due at a live table: the next thing sent is a card, often
    // from a scanner, whose Enter on the opener button would open the dialog
    // again and report the next card as found face up (NSW 12.5).
    const cardDue = isLive() && state.table && state.table.due;
    const back = cardDue ? $('#card-input') : (opener || (isLive() ? $('#card-input') : null));
    if (back) back.focus();
  });
  dlg.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Tab') return;
    const f = [...dlg.querySelectorAll('button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
      .filter((x) => !x.disabled && x.offsetParent !== null);
    if (!f.length) return;
    const first = f[0];
    const last = f[f.length - 1];
    if (ev.shiftKey && document.activeElement === first) { ev.preventDefault(); last.focus(); }
    else if (!ev.shiftKey && document.activeElement === last) { ev.preventDefault(); first.focus(); }
  });
  $('#dlg-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!dlgConfirm || dlgBusy) return;
    const btn = $('#dlg-confirm');
    const err = $('#dlg-error');
    err.innerHTML = '';
    dlgBusy = true;
    btn.disabled = true;
    const label = btn.textContent;
    btn.textContent = 'Sending…';
    try {
      const done = await dlgConfirm(new FormData($('#dlg-form')));
      if (done !== false) dlg.close();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) { dlg.close(); expired(); return; }
      err.innerHTML = errorHtml(e);
    } finally {
      dlgBusy = false;
      btn.disabled = false;
      btn.textContent = label;
    }
  });
}

/**
 * Open the dialog. `rules`: [{ key, caption }] quoted in full; `onConfirm(form)`
 * runs the command (throw to keep the dialog open with the error).
 */
function openDialog({ title, intro = '', rules = [], fields = '', confirm = 'Confirm', danger = false, onConfirm }) {
  const dlg = $('#dialog');
  dlgOpener = document.activeElement;
  $('#dlg-title').textContent = title;
  $('#dlg-intro').innerHTML = intro;
  const quoted = rules.map((r) => {
    const rule = ruleByKey(r.key);
    if (!rule) return '';
    const caption = r.caption ? `${r.caption} — ${rule.cite}` : rule.cite;
    // Rules that do not apply now are a click away.
    if (r.more) return `<details class="more-rule"><summary>${esc(caption)}</summary>${quoteHtml(rule, caption)}</details>`;
    return quoteHtml(rule, caption);
  }).join('');
  $('#dlg-rules').innerHTML = quoted;
  $('#dlg-rules').hidden = !quoted;
  $('#dlg-fields').innerHTML = fields;
  $('#dlg-error').innerHTML = '';
  const btn = $('#dlg-confirm');
  btn.textContent = confirm;
  btn.className = danger ? 'danger' : '';
  dlgConfirm = onConfirm;
  dlg.showModal();
  const first = dlg.querySelector('#dlg-fields input:not([type=radio]):not([type=checkbox]), #dlg-fields input:checked') || btn;
  first.focus();
}

/** Run a command from a dialog and show its notices; errors stay in the dialog. */
async function dialogCommand(body, what) {
  const before = maxSeq();
  await command(body);
  clearError();
  await showOutcome(what, before);
}

function currentCardsInOrder() {
  const t = state.table;
  return t ? t.cards.filter(([, c]) => c).map(([, c]) => c).join(' ') : '';
}

export function irregularityDialog(cmd) {
  const t = state.table;
  const dealing = t && ['dealing'].includes(t.phase);
  const players = [...new Set(((state.pit && state.pit.coup && state.pit.coup.wagers) || []).map((w) => w.player))];
  const radio = (name, value, label, checked) => `<label class="choice"><input type="radio" name="${name}" value="${value}" data-testid="choice-${value}"${checked ? ' checked' : ''}><span>${label}</span></label>`;
  switch (cmd) {
    case 'face_up_in_shoe':
      return openDialog({
        title: 'Card found face up in the shoe',
        intro: `<p>${dealing
          ? 'A card of this coup has been dealt, so the rule for a card found face up <strong>within a coup</strong> applies: it is played as if it were face down, at the position due.'
          : 'No card of this coup has been dealt, so the card becomes the <strong>first card of a no-bet coup</strong>: wagers on this coup are returned.'} The engine applies the rule from the table's state.</p>`,
        rules: dealing
          ? [{ key: 'face_up_within', caption: 'Applies now' }, { key: 'face_up_first', caption: 'Before the first card', more: true }]
          : [{ key: 'face_up_first', caption: 'Applies now' }, { key: 'face_up_within', caption: 'After the first card', more: true }],
        fields: `<div class="field"><label for="dlg-card">The card found face up</label><input id="dlg-card" name="card" data-testid="dialog-card" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="e.g. 2C" required></div>`,
        confirm: 'Report face-up card',
        onConfirm: async (f) => {
          const card = parseCard(f.get('card'));
          if (!card) throw new Error('Enter the card found face up, e.g. 2C or 10S.');
          const pos = t.due;
          const coup = t.coup;
          await dialogCommand({ command: 'face_up_in_shoe', card }, `Face-up card ${cardText(card)} reported`);
          if (dealing && pos && state.coupCards.coup === coup && !state.coupCards.cards[pos]) {
            state.coupCards.cards[pos] = card;
            renderDeal();
          }
        },
      });
    case 'missing_or_foreign':
      return openDialog({
        title: 'Missing or foreign card',
        intro: '<p>The coup is declared void with all monies returned, and the remaining cards are removed and checked: the shoe ends.</p>',
        rules: [{ key: 'missing_or_foreign' }],
        fields: `<fieldset><legend>What was found</legend>
          ${radio('what', 'missing', 'A card is missing', true)}
          ${radio('what', 'foreign', 'A foreign card was found', false)}
          <div class="field"><label for="dlg-card">The foreign card (if known)</label><input id="dlg-card" name="card" data-testid="dialog-card" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="e.g. 5D"></div></fieldset>`,
        confirm: 'Void the coup',
        danger: true,
        onConfirm: async (f) => {
          let card = null;
          if (f.get('what') === 'foreign') {
            card = parseCard(f.get('card'));
            if (!card) throw new Error('Enter the foreign card, e.g. 5D, or choose "A card is missing".');
          }
          await dialogCommand({ command: 'missing_or_foreign', card }, card ? `Foreign card ${cardText(card)} reported` : 'Missing card reported');
        },
      });
    case 'misdeal':
      return openDialog({
        title: 'Misdeal',
        intro: '<p>Reconstruct the coup with the cards in their proper order (each player may then withdraw before play resumes), or, where it cannot be reconstructed, declare it void with all monies returned.</p>',
        rules: [{ key: 'misdeal' }],
        fields: `<fieldset><legend>Remedy</legend>
          ${radio('remedy', 'reconstruct', `Reconstruct with the cards in their proper dealing order${citeOf('misdeal') ? ` (${esc(citeOf('misdeal'))})` : ''}`, true)}
          <div class="field"><label for="dlg-cards">Cards in dealing order (Player 1st, Banker 1st, Player 2nd, Banker 2nd, then any third cards)</label>
          <input id="dlg-cards" name="cards" data-testid="dialog-cards" autocomplete="off" autocapitalize="characters" spellcheck="false" value="${esc(currentCardsInOrder())}"></div>
          ${radio('remedy', 'void', `It cannot be reconstructed: void the coup, all monies returned${citeOf('misdeal') ? ` (${esc(citeOf('misdeal'))})` : ''}`, false)}</fieldset>`,
        confirm: 'Apply remedy',
        onConfirm: async (f) => {
          if (f.get('remedy') === 'void') {
            await dialogCommand({ command: 'misdeal', reconstructed: null }, 'Misdeal: coup void');
          } else {
            const cards = parseCards(f.get('cards'));
            if (!cards.length) throw new Error('Enter the cards in their proper order, or choose to void the coup.');
            await dialogCommand({ command: 'misdeal', reconstructed: cards }, 'Misdeal: coup reconstructed');
          }
        },
      });
    case 'wrong_hand':
      return openDialog({
        title: 'Cards passed to the wrong player',
        rules: [{ key: 'wrong_hand' }],
        fields: `<fieldset><legend>Remedy</legend>
          ${radio('remedy', 'stand', 'The result stands', true)}
          ${radio('remedy', 'void', 'Void the hand at the player’s request (only where the rulebook allows it)', false)}</fieldset>`,
        confirm: 'Record',
        onConfirm: async (f) => {
          const v = f.get('remedy') === 'void';
          await dialogCommand({ command: 'wrong_hand', void_hand: v }, v ? 'Wrong hand: hand void' : 'Wrong hand: the result stands');
        },
      });
    case 'cutting_card_out':
      return openDialog({
        title: 'Cutting card out',
        intro: '<p>Remove the cutting card and place it to the side. The engine counts the coups left: finish this coup and one more, or, if it came out as the first card of a coup, this is the last coup.</p>',
        rules: [{ key: 'cutting_card' }, { key: 'last_coup', caption: 'If it comes out as the first card of a coup', more: true }],
        confirm: 'Record cutting card',
        onConfirm: async () => dialogCommand({ command: 'cutting_card_out' }, 'Cutting card out'),
      });
    case 'scanner_discrepancy':
      return openDialog({
        title: 'Scanner discrepancy',
        intro: '<p>A supervisor confirms the actual cards (in dealing order) and the coup completes with them; if the outcome cannot be confirmed, the coup is void.</p>',
        rules: [{ key: 'scanner_discrepancy' }],
        fields: `<fieldset><legend>Remedy</legend>
          ${radio('remedy', 'confirm', 'The actual cards are confirmed, in dealing order:', true)}
          <div class="field"><label for="dlg-cards">Confirmed cards</label>
          <input id="dlg-cards" name="cards" data-testid="dialog-cards" autocomplete="off" autocapitalize="characters" spellcheck="false" value="${esc(currentCardsInOrder())}"></div>
          ${radio('remedy', 'void', 'The outcome cannot be confirmed: void the coup', false)}</fieldset>`,
        confirm: 'Apply remedy',
        onConfirm: async (f) => {
          if (f.get('remedy') === 'void') {
            await dialogCommand({ command: 'scanner_discrepancy', confirmed: null }, 'Scanner discrepancy: coup void');
          } else {
            const cards = parseCards(f.get('cards'));
            if (cards.length < 4) throw new Error('Enter at least the four cards of the coup in dealing order, or choose to void it.');
            await dialogCommand({ command: 'scanner_discrepancy', confirmed: cards }, 'Scanner discrepancy: cards confirmed');
          }
        },
      });
    case 'invalidate':
      return openDialog({
        title: 'Invalidate the game',
        intro: '<p>The outcome is invalidated and the wagers refunded, except those of players named for a fraudulent act, which are forfeited.</p>',
        rules: [{ key: 'invalidated' }],
        // The reason is a rule the table's rulebook cites; at an RNG table the
        // server requires one once the coup's cards are out.
        fields: `<label>Reason <select name="reason" data-testid="void-reason">${['invalidated', 'shuffler_malfunction'].filter(citeOf).map((k) => `<option value="${k}">${esc(citeOf(k))}</option>`).join('')}</select></label>`
          + (players.length
            ? `<fieldset><legend>Forfeit the wagers of${citeOf('invalidated') ? ` (${esc(citeOf('invalidated'))})` : ''}</legend>${players.map((p) => `<label class="choice"><input type="checkbox" name="forfeit" value="${p}" data-testid="forfeit-${p}"><span>Player #${p}</span></label>`).join('')}</fieldset>`
            : '<p class="muted">No wagers on this coup.</p>'),
        confirm: 'Invalidate',
        danger: true,
        onConfirm: async (f) => {
          const forfeit = f.getAll('forfeit').map(Number);
          const reason = f.get('reason') || null;
          await dialogCommand({ command: 'invalidate', forfeit, reason }, forfeit.length ? 'Game invalidated; named players forfeit' : 'Game invalidated; wagers refunded');
        },
      });
    default:
  }
}

export function refuseDialog(wager) {
  const w = state.pit && state.pit.coup.wagers.find((x) => x.wager === wager);
  openDialog({
    title: `Refuse wager #${wager}`,
    intro: w ? `<p>Player #${w.player}, ${esc(spotWords(w.spot))}: ${esc(words(w.bet))} ${money(w.amount)}. The wager is removed from the layout and returned.</p>` : '',
    rules: [{ key: 'supervisor_refusal' }],
    confirm: 'Refuse wager',
    danger: true,
    onConfirm: async () => dialogCommand({ command: 'refuse_wager', wager }, `Wager #${wager} refused`),
  });
}

export function openCloseDialog() {
  const t = state.table;
  const open = !t.open;
  openDialog({
    title: open ? `Open ${t.name}` : `Close ${t.name}`,
    intro: open
      ? '<p>The table opens for play.</p>'
      : '<p>The coup in progress is finished; then the table deals no more until it is opened again. (The rulebooks ask no notice for this; their notice is for a higher minimum.)</p>',
    confirm: open ? 'Open table' : 'Close table',
    danger: !open,
    onConfirm: async () => {
      await api(`/api/tables/${t.id}/open`, { method: 'POST', body: { open } });
      await refreshNow();
      await loadTables();
      say(open ? 'The table is open.' : 'The table is closed: the coup in progress finishes, then no more.');
    },
  });
}

export function announceDialog() {
  const t = state.table;
  const minutes = noticeMinutes();
  const suggest = ((t.min * 2) / 100).toFixed(2);
  openDialog({
    title: 'Announce a higher minimum',
    intro: `<p>The sign goes up now. ${minutes ? `The rulebook asks at least <strong>${minutes} minutes</strong>' notice: the new minimum may take effect from about <strong>${clock(serverNow() + minutes * 60000)}</strong>` : 'The engine adds the rulebook\'s notice period'}; the table then shows the exact time.</p>`,
    rules: [{ key: 'minimum_change' }],
    fields: `<div class="field"><label for="dlg-min">New minimum (dollars; currently ${money(t.min)})</label><input id="dlg-min" name="minimum" inputmode="decimal" data-testid="dialog-minimum" value="${suggest}"></div>`,
    confirm: 'Put up the sign',
    onConfirm: async (f) => {
      const minimum = parseMoney(f.get('minimum'));
      if (!minimum) throw new Error('Enter the new minimum in dollars, e.g. 20 or 20.00.');
      if (minimum <= t.min) throw new Error(`The announced minimum must be higher than the current ${money(t.min)}.`);
      // at_ms is the clock now; the engine adds the rulebook's notice (NSW 6.7).
      await dialogCommand({ command: 'announce_minimum', minimum, at_ms: serverNow() }, `Higher minimum ${money(minimum)} announced`);
    },
  });
}

/** NSW 6.7: a wager's limits altered between coups: its maximum, and a side
 * bet's minimum (the main wagers' minimum by "Change the minimum", with its
 * notice). The server refuses what the rulebook does not allow, citing it. */
export function changeLimitsDialog() {
  const t = state.table;
  const main = ['player', 'banker', 'tie'];
  openDialog({
    title: "Change a wager's limits",
    intro: `<p>Between coups. A side bet's minimum and maximum, or a main wager's maximum; the main wagers' minimum changes with "Change the minimum", which keeps its notice${citeOf('minimum_change') ? ` (${esc(citeOf('minimum_change'))})` : ''}.</p>`,
    rules: [{ key: 'minimum_change' }],
    fields: `<div class="field"><label for="dlg-bet">Wager</label><select id="dlg-bet" name="bet" data-testid="dialog-bet">${
      (t.offers || []).map((o) => `<option value="${esc(o.bet)}" data-min="${o.min}" data-max="${o.max}">${esc(words(o.bet))} (now ${money(o.min)}–${money(o.max)})</option>`).join('')}</select></div>
      <div class="field"><label for="dlg-lmin">Minimum (dollars; side bets only, empty to keep it)</label><input id="dlg-lmin" name="min" inputmode="decimal" data-testid="dialog-limit-min"></div>
      <div class="field"><label for="dlg-lmax">Maximum (dollars)</label><input id="dlg-lmax" name="max" inputmode="decimal" data-testid="dialog-limit-max"></div>`,
    confirm: 'Change the limits',
    onConfirm: async (f) => {
      const bet = String(f.get('bet'));
      const max = parseMoney(String(f.get('max') || ''));
      if (!max) throw new Error('Maximum: enter it in dollars, e.g. 500 or 500.00.');
      const minText = String(f.get('min') || '').trim();
      const min = minText === '' ? null : parseMoney(minText);
      if (minText !== '' && !min) throw new Error('Minimum: enter it in dollars, or leave it empty to keep it.');
      if (min !== null && main.includes(bet)) throw new Error(`The ${words(bet)} minimum changes with "Change the minimum", which keeps its notice.`);
      await dialogCommand({ command: 'change_limits', bet, min, max }, `${words(bet)} limits changed: maximum ${money(max)}${min !== null ? `, minimum ${money(min)}` : ''}`);
    },
  });
}

export function changeMinimumDialog() {
  const t = state.table;
  const players = [...new Set(((state.pit && state.pit.coup && state.pit.coup.wagers) || []).map((w) => w.player))];
  const ann = t.announced_minimum;
  const noticeRun = ann && serverNow() >= ann[1];
  openDialog({
    title: 'Change the minimum',
    intro: `<p>Currently ${money(t.min)}.${ann ? ` Announced: ${money(ann[0])} from ${clock(ann[1])}${noticeRun ? ' — the notice has run.' : ' — the notice has not yet run.'}` : ' No higher minimum has been announced.'}
      A raise whose notice has not run lets the players present keep the old minimum${citeOf('minimum_change') ? ` (${esc(citeOf('minimum_change'))})` : ''}; tick them below.</p>`,
    rules: [{ key: 'minimum_change' }],
    fields: `<div class="field"><label for="dlg-min">New minimum (dollars)</label><input id="dlg-min" name="minimum" inputmode="decimal" data-testid="dialog-minimum" value="${ann ? (ann[0] / 100).toFixed(2) : (t.min / 100).toFixed(2)}"></div>
      <fieldset><legend>Players present (keep the old minimum on a raise without notice)</legend>
      ${players.length ? players.map((p) => `<label class="choice"><input type="checkbox" name="present" value="${p}" checked data-testid="present-${p}"><span>Player #${p} (has a wager this coup)</span></label>`).join('') : '<p class="muted">No player has a wager on this coup.</p>'}
      <div class="field"><label for="dlg-others">Other players present (player numbers, comma separated)</label><input id="dlg-others" name="others" data-testid="dialog-present" inputmode="numeric"></div></fieldset>`,
    confirm: 'Change the minimum',
    onConfirm: async (f) => {
      const minimum = parseMoney(f.get('minimum'));
      if (!minimum) throw new Error('Enter the new minimum in dollars, e.g. 20 or 20.00.');
      const others = String(f.get('others') || '').split(/[\s,;]+/).filter(Boolean);
      if (others.some((x) => !/^\d+$/.test(x))) throw new Error('Other players present: write player numbers such as 5, 7.');
      const present = [...new Set([...f.getAll('present').map(Number), ...others.map(Number)])];
      await dialogCommand({ command: 'change_minimum', minimum, at_ms: serverNow(), present }, `Minimum changed to ${money(minimum)}`);
    },
  });
}
