// The table's sounds, made in the browser (Web Audio; nothing is fetched):
// a chip put down, a card turned, and a chime for a win. One switch mutes
// them, remembered on this device. Each sound played is also appended to
// `window.__sounds` (its name), which the browser tests read.

const KEY = 'baccarat.sound';
let ctx = null;

/** Whether sound is on (the default), as the player last set it. */
export function soundOn() {
  return localStorage.getItem(KEY) !== 'off';
}

export function setSound(on) {
  localStorage.setItem(KEY, on ? 'on' : 'off');
}

function tone(freq, start, length, type = 'sine', gain = 0.08) {
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.value = freq;
  g.gain.setValueAtTime(gain, ctx.currentTime + start);
  g.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + start + length);
  o.connect(g).connect(ctx.destination);
  o.start(ctx.currentTime + start);
  o.stop(ctx.currentTime + start + length);
}

const SOUNDS = {
  chip: () => tone(1400, 0, 0.05, 'square', 0.03),
  card: () => tone(500, 0, 0.07, 'triangle', 0.05),
  win: () => { tone(1047, 0, 0.18); tone(1319, 0.12, 0.25); tone(1568, 0.24, 0.35); },
};

/** Play `name` unless muted. A browser lets a page make sound only after
 * the player has touched it: until then nothing plays, and nothing fails. */
export function play(name) {
  if (!soundOn() || !SOUNDS[name]) return;
  (window.__sounds = window.__sounds || []).push(name);
  try {
    ctx = ctx || new AudioContext();
    if (ctx.state === 'suspended') ctx.resume().catch(() => {});
    SOUNDS[name]();
  } catch { /* no audio here */ }
}
