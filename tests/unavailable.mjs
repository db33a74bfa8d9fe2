// A test that finds what it needs missing here (a demo fell back to its placeholder,
// data-pending="1"; a shipped checkpoint is not in this build): outside CI it is reported as
// skipped with the reason; in CI (CI=true), where every demo and checkpoint ships, it fails.
// Use: if (missing) { await page.close(); return unavailable(t, 'reason'); }
import assert from 'node:assert/strict';

export const inCI = !!process.env.CI && !['0', 'false'].includes(process.env.CI.toLowerCase());

export function unavailable(t, reason) {
  if (inCI) assert.fail(`${reason} (CI=${process.env.CI}: every demo ships, so this is a failure)`);
  t.skip(reason);
}
