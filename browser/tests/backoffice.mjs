// The back office (/admin) at 1440x900, on an empty casino (no --demo):
// the admin signs in with the first admin's password, creates staff of every
// role (inspector, dealer, supervisor, tournament manager, a second admin)
// and a player, deposits into the player's wallet, creates two
// tables of different rulebooks from the form (a maximum below the minimum
// is named by the check as it is typed, and the problem goes when it is
// fixed), fills and credits a table's float, the player plays a coup (through
// the API), is refused a cash-out beyond the wallet and cashes out the rest,
// and the day's report shows the table, the deposit and the cash-out, with
// its CSV. The inspector then reads people, tables and the books, with no
// control that changes anything, and the server refuses an inspector's
// change. Screenshots of each section.
import {
  ADMIN_PASSWORD, BASE, DESK, accessible, apiCall, apiLogin, expect, run, shot, tid, waitAttr,
} from '../lib.mjs';

const PASSWORD = 'office-pass-1';

/** "$1,234.56" as minor units. */
const cents = (text) => {
  const m = /(-?)\$([\d,]+)\.(\d{2})/.exec(text);
  if (!m) throw new Error(`no amount in ${JSON.stringify(text)}`);
  return (m[1] ? -1 : 1) * (Number(m[2].replace(/,/g, '')) * 100 + Number(m[3]));
};

async function signIn(page, name, password) {
  await page.goto(`${BASE}/admin`);
  await page.fill(tid('login-name'), name);
  await page.fill(tid('login-password'), password);
  await page.click(tid('login-submit'));
}

async function tab(page, name) {
  await page.click(tid(`tab-${name}`));
  await page.waitForSelector(`#${name}:not([hidden])`);
}

/** A person made through the form; their id, from the list. */
async function createPerson(page, name, role) {
  await page.fill(tid('user-name'), name);
  await page.selectOption(tid('user-role'), role);
  await page.fill(tid('user-password'), PASSWORD);
  await page.click(tid('user-create'));
  const row = page.locator(`${tid('people-list')} tr[data-name="${name}"]`);
  await row.waitFor();
  expect(await row.getAttribute('data-role') === role, `${name} is a ${role}`);
  return Number((await row.getAttribute('data-testid')).slice('user-'.length));
}

/** The check names a maximum below the minimum as it is typed, and the
 * problem goes once the maximum is fixed. */
async function maxProblemComesAndGoes(page) {
  await page.fill(tid('tf-max'), '5');
  const problem = page.locator(`${tid('tf-problems')} li[data-path="max"]`);
  await problem.first().waitFor();
  await waitAttr(page, tid('tf-check'), 'data-ok', 'false');
  const text = await problem.first().innerText();
  expect(/below minimum/.test(text), `the rules' words for the problem: ${text}`);
  expect(await page.locator(tid('tf-max')).getAttribute('aria-invalid') === 'true', 'the maximum is marked');
  await shot(page, 'backoffice-table-problem-1440');
  await page.fill(tid('tf-max'), '1000');
  await waitAttr(page, tid('tf-check'), 'data-ok', 'true');
  expect(await problem.count() === 0, 'the problem is gone');
}

/** A table made from the form with the rulebook `book`; its id. */
async function createTable(page, name, book, float) {
  await page.selectOption(tid('tf-rulebook'), book);
  await page.fill(tid('tf-name'), name);
  if (float) await page.fill(tid('tf-float'), float);
  await waitAttr(page, tid('tf-check'), 'data-ok', 'true');
  const toml = await page.locator(tid('tf-toml')).textContent();
  expect(toml.includes(`rulebook = "${book}"`) && toml.includes('max = 100000'), `the configuration: ${toml}`);
  await page.click(tid('tf-create'));
  const row = page.locator(`${tid('tables-list')} tr[data-name="${name}"]`);
  await row.waitFor();
  return Number((await row.getAttribute('data-testid')).slice('table-'.length));
}

/** Fill or credit `amount` (typed) through the row's dialog; the float after. */
async function move(page, id, kind, amount) {
  const before = await page.locator(tid(`table-float-${id}`)).innerText();
  await page.click(tid(`table-${kind}-${id}`));
  await page.fill(tid('dialog-amount'), amount);
  await page.click(tid('dialog-confirm'));
  await page.waitForFunction(([sel, was]) => {
    const el = document.querySelector(sel);
    return el && el.textContent !== was && !document.querySelector('#dialog').open;
  }, [tid(`table-float-${id}`), before]);
  return cents(await page.locator(tid(`table-float-${id}`)).innerText());
}

/** One wager by the player at RNG table `id`, and its settlement. */
async function playACoup(id, name) {
  const token = await apiLogin(name, PASSWORD);
  const deadline = Date.now() + 60000;
  for (;;) {
    try {
      await apiCall(token, `/api/tables/${id}/wagers`, { bet: 'banker', amount: 1000, key: `office-${Date.now()}` });
      break;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`no wager taken at table ${id}: ${e.message}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  for (;;) {
    const me = await apiCall(token, '/api/me');
    if (me.available === me.balance) return me.balance;
    if (Date.now() > deadline) throw new Error(`the wager did not settle: ${JSON.stringify(me)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function cage(page, kind, player, amount) {
  await page.fill(tid('cage-q'), player);
  await page.click(tid('cage-search'));
  await page.waitForFunction((n) => [...document.querySelectorAll('#cage-player option')].some((o) => o.textContent.startsWith(n)), player);
  const out = tid(`${kind}-result`);
  await page.evaluate((sel) => { document.querySelector(sel).textContent = ''; }, out);
  await page.fill(tid(`${kind}-amount`), amount);
  await page.click(tid(`${kind}-submit`));
  await page.waitForFunction((sel) => document.querySelector(sel).textContent !== '', out);
  return { state: await page.locator(out).getAttribute('data-state'), text: await page.locator(out).innerText() };
}

/** GET `path` as the admin (through the API, with a token of its own). */
async function asAdmin(path) {
  const token = await apiLogin('admin', ADMIN_PASSWORD);
  return fetch(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

/** The gaming day (YYYY-MM-DD) whose report spans now, asked of the server
 * for the day either side of today in UTC (whatever the zone and cut-off). */
async function gamingDayNow() {
  const now = Date.now();
  for (const shift of [0, -1, 1]) {
    const date = new Date(now + shift * 86400000).toISOString().slice(0, 10);
    const r = await asAdmin(`/api/reports/day?date=${date}`);
    const body = await r.json();
    if (r.ok && body.from_ms <= now && now < body.to_ms) return date;
  }
  throw new Error('no gaming day report spans now');
}

async function theAdmin(newPage, errors) {
  const page = await newPage({ viewport: DESK });
  page.on('pageerror', (e) => errors.push(`admin: ${e.message}`));
  await signIn(page, 'admin', ADMIN_PASSWORD);
  await page.waitForSelector('#people:not([hidden])');
  expect(await page.locator(tid('who-role')).innerText() === 'Administrator', 'signed in as the administrator');

  // People: staff of every role and a player.
  const ids = {};
  const people = [['Ines', 'inspector'], ['Dora', 'dealer'], ['Sam', 'supervisor'], ['Tess', 'tournament_manager'], ['Ada', 'admin'], ['Pat', 'player']];
  for (const [name, role] of people) ids[name] = await createPerson(page, name, role);
  await page.selectOption(tid('people-role'), 'player');
  await page.click(tid('people-search'));
  await page.waitForFunction(() => [...document.querySelectorAll('#people-rows tr')].every((r) => r.dataset.role === 'player'));
  await shot(page, 'backoffice-people-1440');
  await accessible(page, 'the people');

  // The cage: a deposit.
  await tab(page, 'cage');
  const deposit = await cage(page, 'deposit', 'Pat', '500');
  expect(deposit.state === 'ok' && cents(deposit.text.split('holds')[1]) === 50000, `the deposit: ${deposit.text}`);

  // Tables from the form: a problem shown as typed, then two rulebooks.
  await tab(page, 'tables');
  await page.waitForSelector(`${tid('tf-check')}[data-ok="true"]`);
  await maxProblemComesAndGoes(page);
  const a = await createTable(page, 'Salon A', 'nsw-2021');
  const b = await createTable(page, 'Salon B', 'au-casino', '2,500');
  expect(a !== b, 'two tables');
  // The list learns a float from a fill or credit's answer: a fill of a
  // dollar shows Salon B opened with the float typed.
  const opening = await move(page, b, 'fill', '1');
  expect(opening === 250100, `Salon B opened with the float typed, 2,500.00, then 1.00 filled: ${opening}`);
  const filled = await move(page, a, 'fill', '1000');
  const credited = await move(page, a, 'credit', '400');
  expect(filled - credited === 40000, `a credit of 400.00 after the fill: ${filled} then ${credited}`);
  await shot(page, 'backoffice-tables-1440');
  await accessible(page, 'the tables');

  // A coup, then the cage: beyond the wallet refused, the rest cashed out.
  const balance = await playACoup(a, 'Pat');
  await tab(page, 'cage');
  const over = await cage(page, 'cashout', 'Pat', '100000');
  expect(over.state === 'error', `a cash-out beyond the wallet is refused: ${over.text}`);
  const out = await cage(page, 'cashout', 'Pat', (balance / 100).toFixed(2));
  expect(out.state === 'ok' && cents(out.text.split('holds')[1]) === 0, `the cash-out: ${out.text}`);
  await shot(page, 'backoffice-cage-1440');

  // The day's report, and its CSV.
  await tab(page, 'books');
  await page.waitForSelector(`${tid('gaming-day')}:not(:empty)`);
  const date = await gamingDayNow();
  await page.fill(tid('report-date'), date);
  await page.click(tid('report-show'));
  await waitAttr(page, tid('report-title'), 'data-date', date);
  const row = page.locator(`${tid('report-tables')} tr[data-testid="report-tables-${a}"]`);
  expect(cents(await row.locator('td').nth(1).innerText()) === 1000, `table A's drop: ${await row.innerText()}`);
  expect(cents(await page.locator(tid('report-casino-deposits')).innerText()) === 50000, 'the deposit in the books');
  expect(cents(await page.locator(tid('report-casino-cash_outs')).innerText()) === balance, 'the cash-out in the books');
  const href = await page.locator(tid('report-csv')).getAttribute('href');
  expect(href.endsWith(`/api/reports/day?date=${date}&format=csv`), `the CSV's link: ${href}`);
  const csv = await asAdmin(href);
  expect(csv.ok && (await csv.text()).includes('Salon A'), 'the CSV names the table');
  await shot(page, 'backoffice-books-1440');
  await accessible(page, 'the books');
  return { ids, a };
}

async function theInspector(newPage, errors, a) {
  const page = await newPage({ viewport: DESK });
  page.on('pageerror', (e) => errors.push(`inspector: ${e.message}`));
  await signIn(page, 'Ines', PASSWORD);
  await page.waitForSelector(tid('read-only'));
  await page.waitForSelector(`${tid('people-list')} tr[data-name="Pat"]`);
  const changes = ['user-form', 'user-create', 'tab-cage', 'table-form', 'day-form'];
  for (const id of changes) expect(await page.locator(tid(id)).count() === 0, `no ${id} for the inspector`);
  expect(await page.locator('[data-testid^="user-disable-"], [data-testid^="user-password-"], [data-testid^="user-role-"]').count() === 0, 'no changes to people');
  await shot(page, 'backoffice-inspector-people-1440');
  await tab(page, 'tables');
  await page.waitForSelector(`${tid('tables-list')} tr[data-testid="table-${a}"]`);
  expect(await page.locator('[data-testid^="table-fill-"], [data-testid^="table-close-"]').count() === 0, 'no changes to tables');
  await tab(page, 'books');
  await page.waitForSelector(`${tid('gaming-day')}:not(:empty)`);
  const buttons = await page.locator('main button:visible').evaluateAll((els) => els.map((e) => e.dataset.testid));
  expect(buttons.every((t) => ['report-show', 'people-search', 'people-first', 'people-next'].includes(t)), `only buttons that read: ${buttons}`);
  await shot(page, 'backoffice-inspector-books-1440');
  await accessible(page, 'the inspector\'s back office');
  // The server refuses the inspector's change whatever the page shows.
  const token = await apiLogin('Ines', PASSWORD);
  const refused = await fetch(`${BASE}/api/users`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: 'Mallory', role: 'admin', password: PASSWORD }),
  });
  expect(refused.status === 403, `an inspector's change is refused: ${refused.status}`);
}

await run('backoffice', async ({ newPage }) => {
  const errors = [];
  const { a } = await theAdmin(newPage, errors);
  await theInspector(newPage, errors, a);
  // A player is turned away from the back office.
  const page = await newPage({ viewport: DESK });
  await signIn(page, 'Pat', PASSWORD);
  await page.waitForSelector(`${tid('login-error')}:not(:empty)`);
  expect(await page.locator('#tabs').isHidden(), 'no sections for a player');
  expect(errors.length === 0, `no script errors: ${errors.join('; ')}`);
});
