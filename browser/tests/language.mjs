// The language switch: the player's page in English, Simplified and
// Traditional Chinese, from one message catalogue. The spots and the roads
// take the conventional labels (庄 闲 和 / 莊 閒 和), the choice is kept on
// this device across a reload, and the page stays accessible in each.

import { BASE, DESK, NARROW as PHONE, accessible, expect, run, shot } from '../lib.mjs';

const log = (...a) => console.log('[language]', ...a);

const text = (page, id) => page.getByTestId(id).innerText();

run('language', async ({ newPage }) => {
  const page = await newPage({ viewport: DESK });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}/`);
  expect((await text(page, 'login-submit')) === 'Sign in', 'English first (the browser is en-US)');
  // The switch is filled from the catalogue once it has loaded: wait for
  // its options (a busy machine can read it empty before then).
  await page.getByTestId('lang').locator('option').nth(2).waitFor({ state: 'attached' });
  const options = await page.getByTestId('lang').locator('option').allInnerTexts();
  expect(JSON.stringify(options) === JSON.stringify(['English', '简体中文', '繁體中文']), `the switch lists the catalogue's languages: ${options}`);

  // Simplified Chinese, before signing in: the form is in it.
  await page.getByTestId('lang').selectOption('zh-Hans');
  expect((await text(page, 'login-submit')) === '登录', `the sign-in button in Simplified Chinese: ${await text(page, 'login-submit')}`);
  expect((await page.evaluate(() => document.documentElement.lang)) === 'zh-Hans', 'the page says its language');
  await page.getByTestId('login-name').fill('player5');
  await page.getByTestId('login-password').fill('demo');
  await page.getByTestId('login-password').press('Enter');
  await page.getByTestId('join-1').waitFor();
  expect((await text(page, 'join-1')).startsWith('进入'), `the lobby in Chinese: ${await text(page, 'join-1')}`);
  await page.getByTestId('join-1').click();
  await page.getByTestId('spot-banker').waitFor();
  // Wait for a coup to have been played, so the roads have marks.
  await page.waitForFunction(() => document.querySelectorAll('#roads-board .road-bead .mark').length > 0, null, { timeout: 30000 });
  const spots = { banker: await page.locator('[data-testid=spot-banker] .spot-name').innerText(), player: await page.locator('[data-testid=spot-player] .spot-name').innerText(), tie: await page.locator('[data-testid=spot-tie] .spot-name').innerText() };
  log('spots', JSON.stringify(spots));
  expect(spots.banker === '庄' && spots.player === '闲' && spots.tie === '和', `the spots' conventional labels: ${JSON.stringify(spots)}`);
  expect((await text(page, 'confirm')) === '确认', 'Confirm in Chinese');
  expect((await page.locator('#roads-title').innerText()) === '路单', 'the roads in Chinese');
  const beads = await page.locator('#roads-board .road-bead .mark').allInnerTexts();
  expect(beads.length > 0 && beads.every((b) => ['庄', '闲', '和'].includes(b.trim())), `the bead plate's marks: ${beads}`);
  const phase = await text(page, 'phase');
  expect(/[\u4e00-\u9fff]/.test(phase), `the phase in Chinese: ${phase}`);
  await accessible(page, 'the table in Simplified Chinese');
  await shot(page, 'table-zh-Hans-1440x900');
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow <= 0, `no sideways scroll at 390 px in Chinese (${overflow} px)`);
  await shot(page, 'table-zh-Hans-390x844');
  await page.setViewportSize(DESK);

  // Kept across a reload.
  await page.reload();
  await page.getByTestId('spot-banker').waitFor();
  expect((await text(page, 'confirm')) === '确认', 'still Chinese after a reload');
  expect((await page.getByTestId('lang').inputValue()) === 'zh-Hans', 'the switch shows it');

  // Traditional Chinese, at the table: redrawn at once.
  await page.getByTestId('lang').selectOption('zh-Hant');
  expect((await page.locator('[data-testid=spot-banker] .spot-name').innerText()) === '莊', 'Banker in Traditional Chinese');
  expect((await text(page, 'confirm')) === '確認', 'Confirm in Traditional Chinese');
  await page.waitForFunction(() => [...document.querySelectorAll('#roads-board .road-bead .mark')].every((m) => ['莊', '閒', '和'].includes(m.textContent.trim())));
  await accessible(page, 'the table in Traditional Chinese');
  await shot(page, 'table-zh-Hant-1440x900');
  // The table's help and provably-fair pages follow the choice.
  const other = await page.context().newPage();
  await other.goto(`${BASE}/help?table=1`);
  await other.waitForFunction(() => document.body.dataset.ready === 'true');
  const helpTitle = await other.getByTestId('help-title').innerText();
  expect(helpTitle.endsWith('規則與賠率') && (await other.locator('#h-wagers-title').innerText()) === '投注、賠率與莊家優勢', `the help page in Traditional Chinese: ${helpTitle}`);
  await accessible(other, 'the help page in Traditional Chinese');
  await other.goto(`${BASE}/fair?table=1`);
  await other.waitForFunction(() => document.body.dataset.ready === 'true');
  expect((await other.getByTestId('fair-title').innerText()) === '可驗證公平的牌靴', 'the provably-fair page in Traditional Chinese');
  await shot(other, 'fair-zh-Hant-1440x900');
  await other.close();

  // And back to English.
  await page.getByTestId('lang').selectOption('en');
  expect((await text(page, 'confirm')) === 'Confirm' && (await page.locator('[data-testid=spot-banker] .spot-name').innerText()) === 'Banker', 'English again');
  expect(errors.length === 0, `no page errors: ${errors.join('; ')}`);
});
