// Latest-wins for asynchronous engine calls: wraps an async function so that when calls
// overlap (a slider dragged faster than the engine answers) only the newest result is applied.
// The engine may be the main-thread module (plain values) or the Worker client (promises).
export function latest(fn) {
  let seq = 0;
  return async (...args) => {
    const mine = ++seq;
    const r = await fn(...args, () => mine !== seq);
    return r;
  };
}
