// The player's page in the player's language. Every word the page writes is
// in one catalogue, messages.json: { "<language tag>": { "_name": "<its own
// name>", "<key>": "<text with {vars}>" } }. Adding a language is adding a
// block there, with every key English has (a test checks it): no code. The
// switch lists whatever languages the catalogue holds.
//
// Pages that do not opt in (`useSavedLanguage`) stay in English: the pit
// console and the inspector's pages are the staff's, in the rulebooks'
// language.
//
// `words(id)` of a wager, outcome or dealing style uses "w.<id>" where the
// language has it, else the id in English words.

const CATALOGUE = await fetch('/assets/messages.json').then((r) => r.json()).catch(() => ({ en: {} }));
const KEY = 'baccarat.lang';
let current = 'en';

/** The catalogue's languages: [tag, own name]. */
export function languages() {
  return Object.keys(CATALOGUE).map((tag) => [tag, CATALOGUE[tag]._name || tag]);
}

export function language() {
  return current;
}

/** The text of `key` in the page's language (English if it lacks it), with
 * each {name} replaced by vars[name]. */
export function tr(key, vars = {}) {
  const text = (CATALOGUE[current] && CATALOGUE[current][key]) ?? (CATALOGUE.en && CATALOGUE.en[key]) ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** `key`'s text for a count: `<key>_one` for 1 where the language has it. */
export function trn(key, n, vars = {}) {
  const one = `${key}_one`;
  const has = (CATALOGUE[current] && one in CATALOGUE[current]) || (CATALOGUE.en && one in CATALOGUE.en);
  return tr(n === 1 && has ? one : key, { n, ...vars });
}

/** The word for an id, if the page's language has one. */
export function word(id) {
  return CATALOGUE[current] && CATALOGUE[current][`w.${id}`];
}

/** Put the catalogue's text into `root`: `data-i18n` (the text), and
 * `data-i18n-title`, `data-i18n-placeholder` and `data-i18n-label`
 * (aria-label). */
export function translate(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = tr(el.dataset.i18n);
  for (const [data, attr] of [['i18nTitle', 'title'], ['i18nPlaceholder', 'placeholder'], ['i18nLabel', 'aria-label']]) {
    for (const el of root.querySelectorAll(`[data-${data.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}]`)) {
      el.setAttribute(attr, tr(el.dataset[data]));
    }
  }
}

/** Switch the page to `tag` (remembered on this device); listeners of
 * `languagechange` on `document` redraw what they wrote. */
export function setLanguage(tag) {
  current = CATALOGUE[tag] ? tag : 'en';
  localStorage.setItem(KEY, current);
  document.documentElement.lang = current;
  translate();
  document.dispatchEvent(new CustomEvent('languagechange', { detail: current }));
}

/** Opt in: the language saved on this device, else the browser's first that
 * the catalogue has (zh-CN as Simplified, zh-TW and zh-HK as Traditional). */
export function useSavedLanguage() {
  const saved = localStorage.getItem(KEY);
  if (saved && CATALOGUE[saved]) return setLanguage(saved);
  for (const l of navigator.languages || []) {
    const tag = /^zh-(TW|HK|MO|Hant)/i.test(l) ? 'zh-Hant' : /^zh/i.test(l) ? 'zh-Hans' : l.split('-')[0];
    if (CATALOGUE[tag]) {
      current = tag;
      document.documentElement.lang = tag;
      translate();
      return;
    }
  }
  translate();
}
