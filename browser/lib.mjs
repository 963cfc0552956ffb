// Shared helpers for the browser scenarios in browser/tests/*.mjs.
//
// Each scenario is run by crates/baccarat/tests/cli/browser.rs as
// `node browser/tests/<name>.mjs` from the workspace root, against a fresh
// `baccarat serve`, with these environment variables:
//   BASE_URL        the server, e.g. http://127.0.0.1:41234 (no trailing slash)
//   ADMIN_PASSWORD  the admin password printed on the server's first run
//   SCREENSHOT_DIR  where screenshots go (target/screenshots/<name>)
// A scenario exits 0 on success and 1 on failure; write it as
//   run('name', async (ctx) => { const page = await ctx.newPage(); ... })
// so that failures are reported with a screenshot of every open page.

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** The server under test, without a trailing slash. */
export const BASE = (process.env.BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');

/** The admin password the server printed on its first run (may be empty). */
export const ADMIN_PASSWORD = process.env.ADMIN_PASSWORD || '';

/** Where screenshots are written. */
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR || join('target', 'screenshots', 'manual');

/** How long run() lets a scenario take before failing it (the Rust side kills node 10 s later). */
export const TIMEOUT_MS = Number(process.env.SCENARIO_TIMEOUT_MS) || 110_000;

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const browsers = new Set();

/**
 * Start Debian's headless Chromium. Close it with `await browser.close()`
 * (run() closes any browser still open).
 */
export async function launch(options = {}) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...options,
  });
  browsers.add(browser);
  browser.on('disconnected', () => browsers.delete(browser));
  return browser;
}

/** Save a full-page PNG of `page` as SCREENSHOT_DIR/<name>.png; returns its path. */
export async function shot(page, name) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = join(SCREENSHOT_DIR, name.endsWith('.png') ? name : `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Throw an Error with `message` unless `cond` is truthy. */
export function expect(cond, message) {
  if (!cond) {
    throw new Error(`expectation failed: ${message}`);
  }
}

/**
 * Log in through the API: POST {name, password} to ${BASE}/api/login.
 * `via` is a Playwright Page, BrowserContext or APIRequestContext (its cookies
 * and storage are then the browser's); returns {token, user, role} and the
 * whole response as `body` (`user` is the user id, `name` the login name).
 */
export async function login(via, name, password) {
  const request = via.request ?? via;
  const response = await request.post(`${BASE}/api/login`, {
    data: { name, password },
    headers: { 'content-type': 'application/json' },
  });
  const text = await response.text();
  if (!response.ok()) {
    throw new Error(`login as ${name}: HTTP ${response.status()}: ${text}`);
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`login as ${name}: not JSON: ${text}`);
  }
  if (!body.token) {
    throw new Error(`login as ${name}: no token in ${text}`);
  }
  return { token: body.token, user: body.user, name: body.name ?? name, role: body.role, body };
}

/**
 * Run a scenario. `fn` receives `{ browser, newPage }`: a freshly launched
 * browser and `newPage(contextOptions)`, which opens a page in a new context
 * (its own cookies and storage). On an error or after TIMEOUT_MS, every open
 * page is saved as failure-<name>[-N].png, the error is printed and the process
 * exits 1. On success the browsers are closed and the process exits 0.
 */
export async function run(name, fn) {
  let code = 0;
  try {
    const browser = await launch();
    const newPage = async (options) => {
      const context = await browser.newContext(options);
      return context.newPage();
    };
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`scenario ${name} timed out after ${TIMEOUT_MS} ms`)),
        TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([fn({ browser, newPage }), timeout]);
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    code = 1;
    console.error(`scenario ${name} failed:`);
    console.error(err && err.stack ? err.stack : err);
    const pages = [...browsers].flatMap((b) => b.contexts().flatMap((c) => c.pages()));
    for (const [i, page] of pages.entries()) {
      try {
        const file = await shot(page, pages.length > 1 ? `failure-${name}-${i + 1}` : `failure-${name}`);
        console.error(`screenshot of ${page.url()}: ${file}`);
      } catch (e) {
        console.error(`no screenshot of ${page.url()}: ${e.message}`);
      }
    }
  }
  for (const b of [...browsers]) {
    await b.close().catch(() => {});
  }
  if (code === 0) {
    console.log(`scenario ${name} passed`);
  }
  process.exit(code);
}

/** The API straight from node, as a player or a member of staff would call it. */
export async function apiLogin(name, password = 'demo') {
  const r = await fetch(`${BASE}/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password }),
  });
  const body = await r.json();
  if (!r.ok) throw new Error(`login ${name}: HTTP ${r.status} ${JSON.stringify(body)}`);
  return body.token;
}

export async function apiCall(token, path, body) {
  const r = await fetch(`${BASE}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${text}`);
  return JSON.parse(text);
}

/** The two screen sizes every scenario checks: a laptop and a phone. */
export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 390, height: 844 };
/** The desktop the table page is laid out for without scrolling. */
export const DESK = { width: 1440, height: 900 };

/** Wait for the table on `page` to be taking bets with more than `moreMs`
 * left on its countdown. */
export async function untilBetting(page, moreMs, timeout = 30000) {
  await page.waitForFunction((ms) => {
    const t = document.querySelector('[data-testid=table]');
    const c = document.querySelector('[data-testid=countdown]');
    return t.dataset.phase === 'betting' && !c.hidden && Number(c.dataset.remainingMs) > ms;
  }, moreMs, { timeout });
}

/** axe-core's script (an npm dev dependency; scripts/browser-deps.sh). */
const AXE = readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

/**
 * axe-core's WCAG 2 A and AA rules over the page as it is now: fails the
 * scenario on any violation, naming the rule and the elements. The script is
 * evaluated through the debugging protocol, so the pages' Content-Security-
 * Policy (scripts from their own origin only) stays as served.
 */
export async function accessible(page, name) {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  expect(violations.length === 0, `${name}: axe-core finds ${violations.length} violations: ${JSON.stringify(violations)}`);
}

/**
 * Keep every notice `page` shows from now on (in `window.__notices`, until
 * the page is reloaded): a notice leaves the page after a few seconds (4 s
 * for the table page's news, 8 s on the tournament page), and on a busy
 * machine it could come and go between two polls of a wait. Read them with
 * `noticeSeen`.
 */
export async function keepNotices(page) {
  await page.evaluate(() => {
    if (window.__notices) return;
    window.__notices = [];
    new MutationObserver((changes) => {
      for (const c of changes) for (const n of c.addedNodes) window.__notices.push(n.textContent);
    }).observe(document.querySelector('[data-testid="notices"]'), { childList: true });
  });
}

/** Wait until a notice kept by `keepNotices` matches `re`; its text. */
export async function noticeSeen(page, re, timeout = 30000) {
  const found = await page.waitForFunction(([src, flags]) => {
    const r = new RegExp(src, flags);
    return window.__notices.find((n) => r.test(n));
  }, [re.source, re.flags], { polling: 100, timeout });
  return found.jsonValue();
}

/** A selector for a `data-testid`. */
export const tid = (id) => `[data-testid="${id}"]`;

/** Wait until `selector` matches an element whose `attr` is `value`. */
export async function waitAttr(page, selector, attr, value, timeout = 10000) {
  try {
    await page.waitForFunction(
      ([s, a, v]) => { const el = document.querySelector(s); return !!el && el.getAttribute(a) === v; },
      [selector, attr, value], { timeout },
    );
  } catch (e) {
    const now = await page.evaluate(([s, a]) => { const el = document.querySelector(s); return el ? el.getAttribute(a) : '(missing)'; }, [selector, attr]);
    throw new Error(`waiting for ${selector} [${attr}="${value}"]: it is "${now}"`);
  }
}
