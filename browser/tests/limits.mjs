// Responsible gaming: a player sets a loss limit on the page, and the server
// refuses a bet past it, in the player's words; a reality check comes after
// the chosen number of minutes of play; a break (cool-off) stops every bet.
// The session clock counts from sign-in.

import { BASE, DESK, NARROW as PHONE, WIDE, accessible, expect, run, shot, untilBetting } from '../lib.mjs';

const log = (...a) => console.log('[limits]', ...a);

/** The dialog at both sizes. */
async function shots(page, name) {
  await shot(page, `${name}-1280x800`);
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(150);
  await shot(page, `${name}-390x844`);
  await page.setViewportSize(WIDE);
}

/** A betting window with a few seconds left. */
async function betting(page) {
  await untilBetting(page, 3000);
}

/** The latest notice that contains `words`. */
async function notice(page, words) {
  await page.waitForFunction((w) => document.querySelector('[data-testid=notices]').textContent.includes(w), words, { timeout: 10000 });
  return page.getByTestId('notices').innerText();
}

run('limits', async ({ newPage }) => {
  const page = await newPage({ viewport: DESK });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}/`);
  await page.getByTestId('login-name').fill('player4');
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-password').press('Enter');
  await page.getByTestId('lobby-table-1').waitFor();

  // The session clock counts from sign-in.
  await page.waitForFunction(() => /^Session \d\d:\d\d$/.test(document.querySelector('[data-testid=session-clock]').textContent));
  const first = Number(await page.getByTestId('session-clock').getAttribute('data-ms'));
  await page.waitForTimeout(1200);
  const later = Number(await page.getByTestId('session-clock').getAttribute('data-ms'));
  expect(later > first && first < 60_000, `the session clock runs from sign-in: ${first} then ${later}`);

  // A loss limit of $15.00 a day, set on the page.
  await page.getByTestId('btn-limits').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=limits-status]').textContent.includes('No loss limit'));
  await page.getByTestId('limit-loss').fill('15.00');
  await page.getByTestId('reality-every').selectOption('15');
  await page.getByTestId('limits-save').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=limits-status]').textContent.includes('Loss limit $15.00 a day'));
  const status = await page.getByTestId('limits-status').innerText();
  expect(status.includes('$15.00 left'), `the dialog shows what is left today: ${status}`);
  await accessible(page, 'the limits dialog');
  await shots(page, 'limits-dialog');
  // A higher limit waits a day: the dialog says from when.
  await page.getByTestId('limit-loss').fill('500');
  await page.getByTestId('limits-save').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=limits-status]').textContent.includes('Your loss limit of $500.00 applies from'));
  expect((await page.getByTestId('limits-status').innerText()).includes('Loss limit $15.00 a day'), 'the lower limit stays in force');
  await page.getByTestId('limits-close').click();

  // At the table: a $20 bet is past the limit; the server refuses it, and
  // the page says so in words, with the way to the limits.
  await page.getByTestId('join-1').click();
  await page.getByTestId('spot-banker').waitFor();
  await betting(page);
  await page.getByTestId('chip-1000').click();
  await page.getByTestId('spot-banker').click();
  await page.getByTestId('spot-banker').click();
  await page.getByTestId('confirm').click();
  const refused = await notice(page, 'loss limit');
  log('refused:', refused);
  expect(refused.includes('$15.00') && refused.includes('$20.00') && refused.includes('Your limits are under'),
    `the refusal names the limit and the bet in dollars: ${refused}`);
  expect((await page.getByTestId('spot-banker-placed').getAttribute('data-minor')) === '0', 'nothing was placed');
  // Within the limit, a bet is placed.
  await betting(page);
  await page.getByTestId('chip-1000').click();
  await page.getByTestId('spot-banker').click();
  await page.getByTestId('confirm').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=spot-banker-placed]').dataset.minor === '1000', null, { timeout: 10000 });

  // A reality check after 15 minutes of play (the clock set back, as if the
  // session had started 16 minutes ago).
  await page.evaluate(() => {
    sessionStorage.setItem('baccarat.session.start', String(Date.now() - 16 * 60_000));
    sessionStorage.removeItem('baccarat.reality.last');
  });
  await page.waitForFunction(() => document.querySelector('[data-testid=reality-dialog]').open, null, { timeout: 5000 });
  const reality = await page.getByTestId('reality-text').innerText();
  expect(/You have been playing for 16 minutes\./.test(reality) && reality.includes('balance'), `the reality check: ${reality}`);
  await accessible(page, 'the reality check');
  await shots(page, 'reality-check');
  await page.getByTestId('reality-continue').click();
  expect(!(await page.evaluate(() => document.querySelector('[data-testid=reality-dialog]').open)), 'Keep playing closes it');
  await page.waitForTimeout(1500);
  expect(!(await page.evaluate(() => document.querySelector('[data-testid=reality-dialog]').open)), 'and it does not come back at once');

  // A break of 24 hours: asked twice, then no bet at all.
  await page.getByTestId('btn-limits').click();
  await page.getByTestId('cool-hours').selectOption('24');
  await page.getByTestId('cool-off').click();
  expect((await page.getByTestId('cool-off').innerText()).includes('Press again'), 'a break is asked for twice');
  await page.getByTestId('cool-off').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=limits-message]').textContent.includes('Your break has started'));
  await page.getByTestId('limits-close').click();
  await betting(page);
  await page.getByTestId('chip-100').click();
  await page.getByTestId('spot-player').click();
  await page.getByTestId('confirm').click();
  const resting = await notice(page, 'taking a break');
  expect(resting.includes('UTC'), `the refusal says until when: ${resting}`);
  expect(errors.length === 0, `no page errors: ${errors.join('; ')}`);
});
