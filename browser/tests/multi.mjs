// Several tables at once (issue 49, item 6): a player signed in once opens
// `/multi`, sees four tables side by side on a desktop, bets at two of them
// in the same betting window, and each table takes its own bet; a table
// taken off the page leaves the others as they were, and the choice is kept
// in the address across a reload. At most four: the fifth cannot be chosen.
// Signed out, the page shows one sign-in, not one in each table's frame.

import { BASE, DESK, accessible, expect, run, shot, untilBetting } from '../lib.mjs';

const log = (...a) => console.log('[multi]', ...a);

/** The frame of table `id`, as a Playwright frame. */
async function frameOf(page, id) {
  const el = await page.waitForSelector(`[data-testid="multi-frame-${id}"]`);
  const f = await el.contentFrame();
  await f.waitForSelector('[data-testid=spot-player]', { timeout: 30000 });
  return f;
}

/** A bet of `chip` on the Player at the table in frame `f`, confirmed, and
 * seen placed by that table's page. */
async function bet(f, chip) {
  await untilBetting(f, 2500);
  await f.getByTestId(`chip-${chip}`).click();
  await f.getByTestId('spot-player').click();
  await f.getByTestId('confirm').click();
  await f.waitForFunction((c) => document.querySelector('[data-testid=spot-player-placed]').dataset.minor === String(c), chip, { timeout: 15000 });
  // Read now: the table's own coup may be dealt and settled (its spot
  // cleared) while another table's window is awaited.
  return f.getByTestId('spot-player-placed').getAttribute('data-minor');
}

/** Signed out, `/multi` asks once: one sign-in form on the whole page (none
 * in a table's frame, as there were four), and the tables come once it is
 * used, each frame signed in by it. */
async function oneSignIn(newPage) {
  const page = await newPage({ viewport: DESK });
  await page.goto(`${BASE}/multi`);
  await page.getByTestId('login-form').waitFor();
  await page.waitForTimeout(1000); // any frame would have loaded its page by now
  const forms = async () => {
    let n = 0;
    for (const f of page.frames()) n += await f.locator('[data-testid=login-form]:visible').count();
    return n;
  };
  const before = { forms: await forms(), frames: await page.locator('iframe').count() };
  expect(before.forms === 1 && before.frames === 0, `signed out: one sign-in form and no table yet: ${JSON.stringify(before)}`);
  await accessible(page, 'several tables, signed out');
  await shot(page, 'multi-signed-out-1440x900');
  await page.getByTestId('login-name').fill('player4');
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-password').press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=multi-grid]').dataset.count === '4');
  await frameOf(page, 1);
  expect(await forms() === 0, 'signed in once: no sign-in form left, in the page or a frame');
  await page.context().close();
}

run('multi', async ({ newPage }) => {
  await oneSignIn(newPage);
  log('one sign-in for the page');
  const page = await newPage({ viewport: DESK });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}/`);
  await page.getByTestId('login-name').fill('player5');
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-password').press('Enter');
  await page.getByTestId('lobby-table-1').waitFor();

  // The lobby's way to several tables; with none chosen, the first four open.
  await page.getByTestId('lobby-multi').click();
  await page.waitForURL(/\/multi/);
  await page.waitForFunction(() => document.querySelector('[data-testid=multi-grid]').dataset.count === '4');
  const frames = await page.$$eval('iframe', (l) => l.map((f) => f.dataset.testid));
  log('frames:', frames.join(' '));
  expect(frames.length === 4, `four tables at once: ${frames}`);
  const fifth = page.locator('#m-pick input:not(:checked)').first();
  expect(await fifth.isDisabled(), 'a fifth table cannot be chosen');

  // Two tables, one betting window each: each takes its own bet, and the
  // wallet is the same one (the session cookie signed every frame in).
  const one = await frameOf(page, 1);
  const two = await frameOf(page, 2);
  const [placedOne, placedTwo] = await Promise.all([bet(one, 1000), bet(two, 2000)]);
  log('bets placed at tables 1 and 2');
  expect(placedOne === '1000' && placedTwo === '2000', `each table its own bet: ${placedOne}, ${placedTwo}`);
  await accessible(page, 'several tables');
  await shot(page, 'multi-1440x900');

  // Table 4 off the page: the others stay (table 1's frame is not loaded
  // again: a mark left in it is still there), and the address says which.
  await one.evaluate(() => { window.__stayed = true; });
  await page.getByTestId('multi-choose-4').uncheck();
  await page.waitForFunction(() => document.querySelector('[data-testid=multi-grid]').dataset.count === '3');
  expect(new URL(page.url()).hash === '#tables=1,2,3', `the address keeps the choice: ${page.url()}`);
  expect(await one.evaluate(() => window.__stayed === true), 'table 1 carried on untouched');
  await page.reload();
  await page.waitForFunction(() => document.querySelector('[data-testid=multi-grid]').dataset.count === '3');
  expect(!(await page.$('[data-testid="multi-frame-4"]')), 'and a reload keeps it');
  expect(errors.length === 0, `no page errors: ${errors.join('; ')}`);
});
