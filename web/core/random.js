// A small seeded generator for the page's own random inputs (mulberry32 + Box-Muller), so a
// link with a seed reproduces the same Q and K.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randn(count, seed) {
  const u = mulberry32(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    const th = 2 * Math.PI * u();
    out[i] = r * Math.cos(th);
    if (i + 1 < count) out[i + 1] = r * Math.sin(th);
  }
  return out;
}
