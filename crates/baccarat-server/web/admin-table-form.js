// The back office's new table: a form drawn from the chosen rulebook's own
// choices (`GET /api/rulebooks`: its deck counts, variants, layouts,
// dealing styles, whether it has a differential or an ante, every wager and
// each pay table it prints), written as the TOML a table configuration is,
// and checked by the server as it is typed (`POST /api/tables/check`: the
// creation's own check, every problem at once, nothing made). The page
// decides nothing about the rules: every problem shown is the server's, but
// for an amount the page cannot read.

import { dealingWords, parseMoney, words } from '/assets/common.js';
import { tr } from '/assets/i18n.js';
import { $, call, canChange, el, errorText, fill, options, post, say } from '/assets/admin-base.js';
import { load as loadTables } from '/assets/admin-tables.js';

const form = { rulebooks: [], book: null, seq: 0, timer: null };

/** Amounts the form starts with, in minor units: a table that checks. */
const START = { chip: 100, min: 1000, max: 100000 };

export async function init() {
  if (!canChange()) return;
  const r = await call('/api/rulebooks');
  form.rulebooks = r.rulebooks;
  fill($('#tf-mode'), options([['rng', tr('mode.rng')], ['live', tr('mode.live')]], 'rng'));
  fill($('#tf-rulebook'), options(r.rulebooks.map((b) => [b.id, b.title]), r.rulebooks[0] && r.rulebooks[0].id));
  $('#tf-rulebook').addEventListener('change', () => pick(false));
  $('#table-form').addEventListener('input', schedule);
  $('#table-form').addEventListener('change', schedule);
  $('#table-form').addEventListener('submit', onCreate);
  pick(false);
}

/** Redraw in the page's language, keeping what was typed. */
export function redraw() {
  if (!form.book) return;
  const mode = $('#tf-mode').value;
  fill($('#tf-mode'), options([['rng', tr('mode.rng')], ['live', tr('mode.live')]], mode));
  pick(true);
}

/** Draw the chosen rulebook's choices (`keep`: with the values typed so far). */
function pick(keep) {
  const saved = keep ? values() : null;
  form.book = form.rulebooks.find((b) => b.id === $('#tf-rulebook').value) || form.rulebooks[0];
  const b = form.book;
  $('#tf-rulebook-about').textContent = tr('admin.tf.about', { title: b.title, source: b.source });
  fill($('#tf-choices'), choices(b));
  fill($('#tf-limits'), limits(b));
  fill($('#tf-bets'), b.bets.map((bet) => betRow(bet)));
  if (saved) restore(saved);
  showPays();
  check();
}

// ---------------------------------------------------------------------------
// The fields

/** A labelled field; `rule`: the rule that allows the choices, beneath. */
function field(id, label, input, rule) {
  const help = rule ? el('span', { id: `${id}-rule`, class: 'reason' }, rule) : null;
  if (rule) input.setAttribute('aria-describedby', `${id}-rule`);
  return el('div', { class: 'field' }, el('label', { for: id }, label), input, help);
}

function select(id, path, pairs, chosen) {
  return el('select', { id, testid: id, data: { path } }, options(pairs, chosen));
}

/** Minor units as a person types them: 1000 -> "10.00" (integers only). */
function typed(minor) {
  return `${Math.trunc(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

function amountInput(id, path, start, placeholder) {
  return el('input', {
    id, testid: id, data: { path }, inputmode: 'decimal', size: 10,
    value: start === undefined ? '' : typed(start), placeholder,
  });
}

function choices(b) {
  const out = [
    field('tf-decks', tr('admin.tf.decks'), select('tf-decks', 'decks', b.decks.choices.map((d) => [d, String(d)]), b.decks.default), b.decks.rule),
    field('tf-variant', tr('admin.tf.variant'), select('tf-variant', 'variant', b.variants.map((v) => [v.id, v.title]), b.variants[0] && b.variants[0].id),
      b.variants[0] && b.variants[0].rule),
  ];
  if (b.layouts.length) {
    const pairs = b.layouts.map((l) => [l.name, tr('admin.tf.layout_is', { name: words(l.name), boxes: l.boxes })]);
    out.push(field('tf-layout', tr('admin.tf.layout'), select('tf-layout', 'layout', pairs, b.default_layout), b.layouts[0].rule));
  }
  const dealing = b.dealing.choices.map((d) => [d, dealingWords(d)]);
  out.push(field('tf-dealing', tr('admin.tf.dealing'), select('tf-dealing', 'dealing', dealing, b.dealing.default), b.dealing.rule));
  const approvals = [['', tr('admin.tf.approvals_mode')], ['refuse', tr('admin.tf.approvals_refuse')], ['supervisor', tr('admin.tf.approvals_supervisor')]];
  out.push(field('tf-approvals', tr('admin.tf.approvals'), select('tf-approvals', 'approvals', approvals, ''), tr('admin.tf.approvals_help')));
  out.push(sideBetsRule(b.side_bets_need_main_wager));
  return out;
}

/** Side bets only with a main wager: the profile's rule where it always
 * says so, else a restriction the table may choose (NSW 10.4). */
function sideBetsRule(rule) {
  const box = el('input', {
    type: 'checkbox', id: 'tf-side-main', testid: 'tf-side-main', data: { path: 'side_bets_need_main_wager' },
    checked: rule.always, disabled: rule.always, 'aria-describedby': 'tf-side-main-rule',
  });
  const why = rule.always ? tr('admin.tf.side_main_always', { rule: rule.rule }) : tr('admin.tf.side_main_help');
  return el('div', { class: 'field' }, el('label', { class: 'check-label' }, box, ' ', tr('admin.tf.side_main')),
    el('span', { id: 'tf-side-main-rule', class: 'reason' }, why));
}

function limits(b) {
  const out = [
    field('tf-chip', tr('admin.tf.chip'), amountInput('tf-chip', 'chip', START.chip)),
    field('tf-min', tr('admin.tf.min'), amountInput('tf-min', 'min', START.min)),
    field('tf-max', tr('admin.tf.max'), amountInput('tf-max', 'max', START.max)),
  ];
  if (b.differential.allowed) {
    out.push(field('tf-differential', tr('admin.tf.differential'), amountInput('tf-differential', 'differential', undefined, tr('admin.tf.none')), b.differential.rule));
  }
  if (b.ante) {
    const bound = tr('admin.tf.ante_bound', { num: b.ante.max_num, den: b.ante.max_den, rule: b.ante.rule });
    out.push(field('tf-ante-amount', tr('admin.tf.ante'), amountInput('tf-ante-amount', 'ante.amount', undefined, tr('admin.tf.none')), bound));
    out.push(field('tf-ante-waived', tr('admin.tf.ante_waived'), amountInput('tf-ante-waived', 'ante.waived_at', undefined, tr('admin.tf.none'))));
  }
  return out;
}

/** One wager: Player and Banker pay by the variant; Tie may choose its pay
 * table; a side bet is offered or not, with its pay table and limits. */
function betRow(bet) {
  const id = bet.bet;
  const fixed = id === 'player' || id === 'banker';
  const head = bet.main
    ? el('span', { class: 'bet-name' }, words(id))
    : el('label', { class: 'check-label' },
      el('input', { type: 'checkbox', id: `tf-bet-${id}`, testid: `tf-bet-${id}`, data: { path: `bets.${id}` } }), ' ', words(id));
  const table = fixed || bet.pay_tables.length < 2
    ? null
    : field(`tf-pt-${id}`, tr('admin.tf.pay_table'), select(`tf-pt-${id}`, `bets.${id}.pay_table`, bet.pay_tables.map((t) => [t.name, words(t.name)]), bet.pay_tables[0].name));
  const own = bet.main ? [] : [
    field(`tf-bmin-${id}`, tr('admin.tf.bet_min'), amountInput(`tf-bmin-${id}`, `bets.${id}.min`, undefined, tr('admin.tf.chip_default'))),
    field(`tf-bmax-${id}`, tr('admin.tf.bet_max'), amountInput(`tf-bmax-${id}`, `bets.${id}.max`, undefined, tr('admin.tf.max_default'))),
  ];
  const decks = bet.decks ? tr('admin.tf.bet_decks', { decks: bet.decks.join(', '), rule: bet.decks_rule || bet.rule }) : '';
  return el('div', { class: 'bet', testid: `tf-wager-${id}`, data: { bet: id } },
    el('div', { class: 'bet-head' }, head, el('span', { class: 'reason' }, bet.rule), decks ? el('span', { class: 'reason' }, decks) : null),
    el('div', { class: 'row' }, table, own),
    el('p', { class: 'pays small', id: `tf-pays-${id}`, testid: `tf-pays-${id}` }));
}

/** Each wager's pay lines, as the variant and the pay tables chosen say. */
function showPays() {
  const b = form.book;
  const variant = b.variants.find((v) => v.id === ($('#tf-variant') || {}).value) || b.variants[0];
  for (const bet of b.bets) {
    const chosen = bet.bet === 'player' || bet.bet === 'banker'
      ? variant && variant[bet.bet]
      : ($(`#tf-pt-${bet.bet}`) || { value: bet.pay_tables[0] && bet.pay_tables[0].name }).value;
    const t = bet.pay_tables.find((x) => x.name === chosen);
    const out = $(`#tf-pays-${bet.bet}`);
    if (out) out.textContent = t ? tr('admin.tf.pays', { table: words(t.name), lines: t.lines.map((l) => `${words(l.outcome)} ${l.pays}`).join(', '), rule: t.rule }) : '';
  }
}

/** Every field's value by id (checkboxes by whether checked). */
function values() {
  const out = {};
  for (const e of $('#table-form').querySelectorAll('[data-path]')) out[e.id] = e.type === 'checkbox' ? e.checked : e.value;
  return out;
}

function restore(saved) {
  for (const [id, v] of Object.entries(saved)) {
    const e = document.getElementById(id);
    if (!e) continue;
    if (e.type === 'checkbox') e.checked = v;
    else e.value = v;
  }
}

// ---------------------------------------------------------------------------
// The configuration, in TOML

/** A TOML basic string. */
const str = (s) => `"${String(s).replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;

/**
 * The form as a table configuration: `{ toml, local }`, `local` the
 * problems the page finds itself (an amount it cannot read, one left out
 * that must be given), each at the field the server would name.
 */
function build() {
  const b = form.book;
  const local = [];
  const amount = (id, path, required) => readAmount(id, path, required, local);
  const v = (id) => ($(`#${id}`) || {}).value;
  const top = [`rulebook = ${str(b.id)}`, `decks = ${Number(v('tf-decks'))}`, `variant = ${str(v('tf-variant'))}`];
  if (v('tf-layout')) top.push(`layout = ${str(v('tf-layout'))}`);
  top.push(`dealing = ${str(v('tf-dealing'))}`);
  if (v('tf-approvals')) top.push(`approvals = ${str(v('tf-approvals'))}`);
  const side = $('#tf-side-main');
  if (side && side.checked && !side.disabled) top.push('side_bets_need_main_wager = true');
  for (const k of ['chip', 'min', 'max']) {
    const x = amount(`tf-${k}`, k, true);
    if (x !== undefined) top.push(`${k} = ${x}`);
  }
  const diff = amount('tf-differential', 'differential', false);
  if (diff !== undefined) top.push(`differential = ${diff}`);
  const parts = [top.join('\n'), ante(amount), ...b.bets.map((bet) => betToml(bet, amount))];
  return { toml: `${parts.filter(Boolean).join('\n\n')}\n`, local };
}

function readAmount(id, path, required, local) {
  const input = $(`#${id}`);
  const text = input ? input.value.trim() : '';
  if (!text) {
    if (required) local.push({ path, message: tr('admin.tf.required') });
    return undefined;
  }
  const x = parseMoney(text.replace(/,/g, ''));
  if (x === null) local.push({ path, message: tr('admin.tf.not_amount', { text }) });
  return x === null ? undefined : x;
}

function ante(amount) {
  const a = amount('tf-ante-amount', 'ante.amount', !!($('#tf-ante-waived') && $('#tf-ante-waived').value.trim()));
  if (a === undefined) return '';
  const w = amount('tf-ante-waived', 'ante.waived_at', false);
  return ['[ante]', `amount = ${a}`, w === undefined ? null : `waived_at = ${w}`].filter(Boolean).join('\n');
}

function betToml(bet, amount) {
  const id = bet.bet;
  const box = $(`#tf-bet-${id}`);
  if (box && !box.checked) return '';
  const lines = [];
  const table = $(`#tf-pt-${id}`);
  if (table) lines.push(`pay_table = ${str(table.value)}`);
  if (!bet.main) {
    const min = amount(`tf-bmin-${id}`, `bets.${id}.min`, false);
    const max = amount(`tf-bmax-${id}`, `bets.${id}.max`, false);
    if (min !== undefined) lines.push(`min = ${min}`);
    if (max !== undefined) lines.push(`max = ${max}`);
  }
  if (bet.main && !lines.length) return '';
  return [`[bets.${str(id)}]`, ...lines].join('\n');
}

// ---------------------------------------------------------------------------
// The check, as the admin types

/** A field of the configuration changed: check again once typing pauses
 * (the name and the mode are not the configuration's). */
function schedule(ev) {
  if (ev && ev.target && !ev.target.dataset.path) return;
  showPays();
  clearTimeout(form.timer);
  form.timer = setTimeout(check, 250);
}

async function check() {
  if (!form.book) return;
  const { toml, local } = build();
  $('#tf-toml').textContent = toml;
  const seq = ++form.seq;
  if (local.length) {
    show(local);
    return;
  }
  $('#tf-check').dataset.ok = 'pending';
  try {
    const r = await post('/api/tables/check', { config: toml });
    if (seq === form.seq) show(r.problems);
  } catch (e) {
    if (seq !== form.seq) return;
    $('#tf-check').dataset.ok = 'unknown';
    $('#tf-check').textContent = errorText(e);
  }
}

/** The problems listed, each field with one marked; none: it checks. */
function show(problems) {
  const ok = problems.length === 0;
  const check = $('#tf-check');
  check.dataset.ok = String(ok);
  check.textContent = ok ? tr('admin.tf.ok') : tr('admin.tf.problems', { n: problems.length });
  fill($('#tf-problems'), problems.map((p) => el('li', { data: { path: p.path } }, el('code', {}, p.path || 'config'), ' ', p.message)));
  for (const e of $('#table-form').querySelectorAll('[data-path]')) {
    e.setAttribute('aria-invalid', String(problems.some((p) => p.path === e.dataset.path)));
  }
}

async function onCreate(ev) {
  ev.preventDefault();
  const out = $('#tf-error');
  out.textContent = '';
  const name = $('#tf-name').value.trim();
  if (!name) { out.textContent = tr('admin.tables.need_name'); return; }
  const { toml, local } = build();
  if (local.length) { show(local); out.textContent = tr('admin.tf.fix_first'); return; }
  const float = openingFloat();
  if (float === null) { out.textContent = tr('admin.tables.bad_float', { text: $('#tf-float').value.trim() }); return; }
  const body = { name, config: toml, mode: $('#tf-mode').value };
  if (float !== undefined) body.float = float;
  try {
    const r = await post('/api/tables', body);
    say(tr('admin.tables.created', { name, id: r.table }));
    $('#tf-name').value = '';
    $('#tf-float').value = '';
    await loadTables();
  } catch (e) {
    out.textContent = errorText(e);
  }
}

/** The opening float typed, in minor units: undefined when left empty (the
 * server's default), null when it is not an amount of at least a cent (the
 * server refuses it too, naming `float`). */
function openingFloat() {
  const text = $('#tf-float').value.trim();
  if (!text) return undefined;
  const x = parseMoney(text.replace(/,/g, ''));
  return x === null || x < 1 ? null : x;
}
