// The pit console: the inspector's recall of coups and verification.

import { api, ApiError, esc, $ } from '/assets/common.js';
import { renderInto, role, say, short, showError, state } from '/assets/pit-base.js';
import { describe } from '/assets/pit-words.js';
import { expired } from '/assets/pit.js';

// ---------------------------------------------------------------------------
// Inspector: recall and verification

/** Whether a recalled coup is over: closed after its settlement, or voided. */
function coupDone(c) {
  return c.records.some((rec) => rec.event && ['coup_closed', 'coup_voided'].includes(rec.event.event));
}

export async function loadRecall() {
  const id = state.tableId;
  if (id === null) return;
  const n = Math.min(100, Math.max(1, Number($('#recall-last').value) || 5));
  renderInto($('#recall'), '<p class="muted">Loading the audit chain…</p>');
  try {
    const r = await api(`/api/tables/${id}/audit?last=${n}`);
    if (id !== state.tableId) return;
    state.recall = r;
    // The last completed coup, not one still being dealt.
    const done = r.coups.map(coupDone);
    const last = done.lastIndexOf(true);
    state.recallCoup = last >= 0 ? last : Math.max(0, r.coups.length - 1);
    state.recallStep = 0;
    renderRecall();
    say(`Recall loaded: ${r.coups.length} coup${r.coups.length === 1 ? '' : 's'} of table ${id}.`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    renderInto($('#recall'), '');
    showError(e);
  }
}

export function stepRecall(delta) {
  const c = state.recall && state.recall.coups[state.recallCoup];
  if (!c) return;
  state.recallStep = Math.min(c.records.length - 1, Math.max(0, state.recallStep + delta));
  renderRecall();
  const cur = $('#recall [aria-current="step"]');
  if (cur) cur.scrollIntoView({ block: 'nearest' });
}

export function renderRecall() {
  const r = state.recall;
  if (!r) return;
  if (!r.coups.length) {
    renderInto($('#recall'), '<p data-testid="recall-empty">No coups recorded at this table yet.</p>');
    return;
  }
  // Wagers by id across the recalled coups, so a settlement names its bet.
  const wagers = new Map();
  for (const c of r.coups) for (const rec of c.records) if (rec.event.event === 'wager_placed') wagers.set(rec.event.wager.id, rec.event.wager);
  const pick = r.coups.map((c, i) => `<button type="button" class="${i === state.recallCoup ? '' : 'secondary'}" data-act="recall-coup" data-index="${i}" data-testid="recall-coup-${c.coup}" data-complete="${coupDone(c)}" aria-pressed="${i === state.recallCoup}">Coup ${c.coup}${coupDone(c) ? '' : ' (in progress)'}</button>`).join('');
  const c = r.coups[state.recallCoup];
  const step = c.records[state.recallStep];
  const ruleOf = (e) => (e.rule ? ` <span class="cite-tag">${esc(e.rule)}</span>` : '');
  const items = c.records.map((rec, i) => `<li data-testid="record-${rec.seq}" data-event="${esc(rec.event.event)}"${i === state.recallStep ? ' aria-current="step"' : ''}>
      <span>#${rec.seq}</span><span class="h mono" title="${esc(rec.hash)}">${esc(short(rec.hash, 10))}</span><span class="w">${esc(describe(rec.event, { wagers }))}${ruleOf(rec.event)}</span></li>`).join('');
  const html = `<div class="row" role="group" aria-label="Coups recalled">${pick}</div>
    <article class="recall-coup" data-testid="recall-coup" data-coup="${c.coup}">
      <h3>Table ${r.table}, coup ${c.coup}</h3>
      <p class="muted">Rulebook ${esc(c.rulebook)} (SHA-256 <span class="mono">${esc(short(c.rulebook_sha256, 16))}…</span>) · engine ${esc(c.engine)} · ${c.records.length} records</p>
      <div class="stepper">
        <button type="button" class="secondary" data-act="step" data-delta="-1" data-testid="recall-prev" ${state.recallStep === 0 ? 'disabled' : ''}>◀ Previous</button>
        <span data-testid="recall-position">Step ${state.recallStep + 1} of ${c.records.length}</span>
        <button type="button" data-act="step" data-delta="1" data-testid="recall-next" ${state.recallStep >= c.records.length - 1 ? 'disabled' : ''}>Next ▶</button>
      </div>
      <div class="step-detail" data-testid="recall-step" data-seq="${step.seq}">
        <p><strong>Record #${step.seq}:</strong> ${esc(describe(step.event, { wagers }))}${ruleOf(step.event)}</p>
        <p class="muted">hash <span class="mono">${esc(step.hash)}</span></p>
        <details><summary>Record as stored</summary><pre class="mono" style="white-space:pre-wrap">${esc(JSON.stringify(step.event, null, 2))}</pre></details>
      </div>
      <ol class="records" data-testid="recall-records">${items}</ol>
    </article>`;
  renderInto($('#recall'), html);
}

export async function runVerify() {
  const el = $('#verify-status');
  const led = $('#ledger-status');
  const btn = $('#run-verify');
  btn.disabled = true;
  el.dataset.ok = '';
  el.textContent = 'Verifying…';
  led.textContent = '';
  try {
    const v = await api('/api/verify');
    el.dataset.ok = String(v.ok);
    el.innerHTML = `${v.ok ? '✓ Verified: OK' : '✗ Problems found'} — ${v.tables} tables, ${v.records} records, ${v.shoes} shoes, ${v.coups} coups, ${v.settlements} settlements checked.`
      + (v.problems.length ? `<ul data-testid="verify-problems">${v.problems.map((p) => `<li>${esc(typeof p === 'string' ? p : JSON.stringify(p))}</li>`).join('')}</ul>` : '');
    const l = await api('/api/ledger/check');
    led.dataset.ok = String(l.ok);
    led.textContent = l.ok
      ? `✓ Ledger balances: OK — ${l.accounts} accounts, ${l.transfers} transfers.`
      : `✗ Ledger problem: ${l.problem}`;
    say(v.ok && l.ok ? 'Verification passed.' : 'Verification found problems.');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return expired();
    el.dataset.ok = 'false';
    el.textContent = 'Verification could not run: ' + e.message;
  } finally {
    btn.disabled = false;
  }
}
