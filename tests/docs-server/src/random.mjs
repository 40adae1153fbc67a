// Seeded randomness for the test server's scripted people (typists, browser stand-ins): the
// same seed, the same run.

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seeded(seed) {
  let a = Number(seed) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
