// A table socket's deltas (`GET /api/tables/{id}/ws?deltas=1`), followed:
// the whole message once, then numbered deltas applied to the last message.
// The format is the server's `http/delta.rs` (docs/api.md, "Table
// WebSocket"). No DOM here, so node tests it on its own
// (`node browser/unit/delta.mjs`), and a browser test reads raw frames with it.

/**
 * Apply a delta to the last message (changing it) and return the result: a
 * merge patch where an object merges key by key, `null` sets a member to
 * null (it deletes nothing), and `{"$tail": [k, items]}` on an array keeps
 * its first k items and appends the items; anything else replaces.
 */
export function applyDelta(target, patch) {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const tail = patch.$tail;
  if (Array.isArray(target) && Object.keys(patch).length === 1 && Array.isArray(tail) && tail.length === 2
    && Number.isInteger(tail[0]) && tail[0] >= 0 && Array.isArray(tail[1])) {
    return target.slice(0, tail[0]).concat(tail[1]);
  }
  const out = target !== null && typeof target === 'object' && !Array.isArray(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    const value = applyDelta(Object.hasOwn(out, k) ? out[k] : null, v);
    // A key is data, never a prototype ("__proto__").
    Object.defineProperty(out, k, { value, writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/**
 * A follower of one socket's frames. `take(frame)` returns
 * `{ message }` (the message as it now stands, a copy the caller may keep),
 * `{ resync: true }` (a delta out of turn: ask for the whole message with
 * `{"resync": true}` and wait for it), or `{ other: frame }` (not a numbered
 * frame: a refusal).
 */
export function deltaFollower() {
  let msg = null;
  let seq = null;
  return {
    take(frame) {
      if (frame.full !== undefined) {
        [msg, seq] = [frame.full, frame.seq];
      } else if (frame.delta !== undefined && msg !== null && frame.seq === seq + 1) {
        msg = applyDelta(msg, frame.delta);
        seq = frame.seq;
      } else if (frame.delta !== undefined) {
        [msg, seq] = [null, null];
        return { resync: true };
      } else {
        return { other: frame };
      }
      return { message: structuredClone(msg) };
    },
  };
}
