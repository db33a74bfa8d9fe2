// The WebAssembly Catch2 suites, run in shards: a few node processes, each running a share of the
// test cases, instead of CTest's one process per case. Starting node and instantiating the
// 3 MB test module (and, in the pthread build, its pool of workers) costs about a quarter of a
// second per process, which was most of these stages' time. Every case is still counted on its
// own, from Catch2's XML report:
//   passed   its OverallResult succeeded and it did not skip
//   skipped  it called ATTNLAB_SKIP (main.cpp adds a warning "attnlab: skipped: <reason>")
//   failed   its OverallResult failed, or it started and its process died or hung in it
// A process that dies in a case (an abort, a trap) takes only that case with it: the cases of
// its share that had not started run again in a new process. A case that fails is then run
// again alone with Catch2's console reporter, so the log shows its expressions; if it passes
// alone it still counts as failed, and the log says that the cases before it in its share
// changed its outcome.
// A share whose every started case reported a result must exit as tests/cpp/main.cpp says for
// those results (its failed-case count; 77 when every case skipped): any other status after the
// last report (a crash at exit, a runtime that failed as it shut down) counts as one more
// failure of the stage, named after the share.
// Shares are balanced by the cases' durations in the previous run (build/<dir>/catch-times.json).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from './run.mjs';

// Catch2 v2 reads each line of an --input-file as one quoted test name, in which `,`, `[`, `]`,
// `"` and `\` must be escaped.
export const escapeName = (name) => name.replace(/[\\,[\]"]/g, (c) => `\\${c}`);

const unxml = (s) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');

// Catch2's XML report (possibly cut short) -> {started: [names in order], results: Map(name ->
// {success, seconds, skipped})}. A case skipped with ATTNLAB_SKIP carries a <Warning> that
// starts "attnlab: skipped" (main.cpp).
export function parseXmlReport(xml) {
  const started = [];
  const results = new Map();
  const re =
    /<TestCase name="([^"]*)"|<Warning>\s*attnlab: skipped|<OverallResult success="(true|false)"(?: durationInSeconds="([\d.e+-]+)")?/g;
  let current = null,
    skipped = false;
  for (let m; (m = re.exec(xml));) {
    if (m[1] !== undefined) {
      current = unxml(m[1]);
      started.push(current);
      skipped = false;
    } else if (m[2] === undefined) {
      skipped = current !== null;
    } else if (current !== null) {
      results.set(current, { success: m[2] === 'true', seconds: Number(m[3] ?? 0), skipped });
      current = null;
    }
  }
  return { started, results };
}

// The exit status tests/cpp/main.cpp gives a run of `started` cases of which `failed` failed
// and `skipped` skipped (without failing): the failed-case count (at most 255, and 78 for 77, the
// skip code); 77 when every case skipped; 1 when no case started.
export const SKIP_EXIT_CODE = 77;
export function expectedExit({ started, failed, skipped }) {
  if (started === 0) return 1;
  if (failed === 0 && skipped === started) return SKIP_EXIT_CODE;
  const n = Math.min(failed, 255);
  return n === SKIP_EXIT_CODE ? n + 1 : n;
}

// Why a share's exit disagrees with its cases, or null. r: {code, timedOut} of its process;
// started: the names it started in order; results: parseXmlReport's map; left: how many of its
// cases never started. Only a share whose every started case reported is judged: a process that
// died or hung inside a case already failed that case, and a non-zero exit is then expected.
export function shareExitProblem(r, started, results, left) {
  if (r.timedOut || left > 0 || !started.length || !started.every((n) => results.has(n))) return null;
  const cases = started.map((n) => results.get(n));
  const failed = cases.filter((c) => !c.success).length;
  const skipped = cases.filter((c) => c.success && c.skipped).length;
  const want = expectedExit({ started: started.length, failed, skipped });
  if (r.code === 0 || r.code === want) return null; // a zero exit hides no failure: each case counts
  return `its process exited with ${r.code} after its last case reported (${failed} failed case(s): exit ${want} expected)`;
}

// Longest-first assignment of cases to `n` shares by expected seconds.
export function balance(names, seconds, n) {
  const shares = Array.from({ length: Math.max(1, Math.min(n, names.length)) }, () => ({ names: [], load: 0 }));
  const order = [...names].sort((a, b) => (seconds[b] ?? 1) - (seconds[a] ?? 1));
  for (const name of order) {
    const s = shares.reduce((a, b) => (b.load < a.load ? b : a));
    s.names.push(name);
    s.load += seconds[name] ?? 1;
  }
  return shares.filter((s) => s.names.length);
}

// dir: the build folder (build/wasm, build/wasm-mt). Returns {passed, failed, skipped}.
// spec: a Catch2 test spec (default: the build's ATTNLAB_TEST_SPEC, the cases CTest registers).
// timeoutMs: a share's limit. Whole shares take seconds (a few dozen cases of the fast suites),
// so a share still running after five minutes is hung (a thread waiting for a Worker, a lost
// wake-up): it is killed, its case counts as failed, and the cases after it run in a new share.
export async function catchShards(
  dir,
  { jobs = 2, shares = 3 * jobs, timeoutMs = 300_000, env = process.env, spec = null } = {}
) {
  const cache = readFileSync(path.join(dir, 'CMakeCache.txt'), 'utf8');
  if (spec === null) {
    // as tests/cpp/catch.cmake registers them: the hidden [.] cases stay out
    const own = cache.match(/^ATTNLAB_TEST_SPEC:STRING=(.*)$/m)?.[1] ?? '';
    spec = own ? `${own}~[.]` : '';
  }
  const emulator = (cache.match(/^CMAKE_CROSSCOMPILING_EMULATOR:[A-Z]+=(.*)$/m)?.[1] ?? 'node').split(';');
  const exe = path.join(dir, 'attnlab_tests.cjs');
  if (!existsSync(exe)) throw new Error(`${exe} is missing: build it first`);
  const [cmd, ...pre] = emulator;
  const exec = (args, opts = {}) =>
    run(cmd, [...pre, exe, ...args], { capture: true, cwd: dir, env, timeoutMs, ...opts });

  // Catch2 v2 exits with the number of cases it listed. The listing goes to a file, not a pipe:
  // the pthread build's runtime exits with what it wrote to a full pipe still pending in node
  // (a busy machine cut it at the same place every time), while a file's writes are synchronous.
  const work = path.join(dir, 'catch-shards');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const listFile = path.join(work, 'listing.txt');
  let names = [],
    listing = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const fd = openSync(listFile, 'w');
    try {
      listing = await exec(['--list-test-names-only', ...(spec ? [spec] : [])], {
        capture: false,
        stdio: ['ignore', fd, 'inherit'],
      });
    } finally {
      closeSync(fd);
    }
    names = readFileSync(listFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    if (names.length && listing.code === names.length % 256) break;
  }
  if (!names.length || listing.code !== names.length % 256)
    throw new Error(`${exe} --list-test-names-only: ${names.length} case(s) read, exit ${listing.code}`);

  const timesFile = path.join(dir, 'catch-times.json');
  let seconds = {};
  try {
    seconds = JSON.parse(readFileSync(timesFile, 'utf8'));
  } catch {
    /* first run: every case counts as a second */
  }

  const passed = new Set(),
    failed = new Map(), // name -> why
    skipped = new Set(),
    took = {};
  let serial = 0;
  // Runs one share; returns the names it never started (its process died or hung before them).
  async function runShare(share) {
    const k = ++serial;
    const list = path.join(work, `share-${k}.txt`);
    const report = path.join(work, `share-${k}.xml`);
    writeFileSync(list, share.map(escapeName).join('\n') + '\n');
    const t0 = Date.now();
    const r = await exec(['-f', list, '-r', 'xml', '-d', 'yes', '-o', report]);
    const xml = existsSync(report) ? readFileSync(report, 'utf8') : '';
    const { started, results } = parseXmlReport(xml);
    for (const name of started) {
      const res = results.get(name);
      if (!res) {
        failed.set(
          name,
          r.timedOut
            ? `did not finish within ${timeoutMs / 1000} s`
            : `its process ended inside it (exit ${r.code}):\n${r.out.slice(-4000)}`
        );
        continue;
      }
      took[name] = res.seconds;
      if (!res.success) failed.set(name, 'failed in its share');
      else if (res.skipped) skipped.add(name);
      else passed.add(name);
    }
    const done = new Set(started);
    const left = share.filter((n) => !done.has(n));
    const exitProblem = shareExitProblem(r, started, results, left.length);
    if (exitProblem) failed.set(`<share ${k} exit>`, exitProblem);
    const unknown = started.filter((n) => !share.includes(n));
    if (unknown.length) throw new Error(`share ${k} ran cases it was not given: ${unknown.join('; ')}`);
    if (left.length && r.code === 0 && !r.timedOut)
      throw new Error(`share ${k} ended cleanly without running ${left.length} case(s): ${left[0]} ...`);
    if (left.length && !started.length) {
      // the process ended before its first case: nothing would run in a new share either
      for (const name of left)
        failed.set(name, `its process ended before any case ran (exit ${r.code}):\n${r.out.slice(-4000)}`);
      console.log(`attnlab: ${path.basename(dir)} share ${k}: its process ended before any case ran (exit ${r.code})`);
      return [];
    }
    console.log(
      `attnlab: ${path.basename(dir)} share ${k}: ${started.length}/${share.length} case(s) run in ${((Date.now() - t0) / 1000).toFixed(1)} s` +
        (left.length ? `; its process ended (exit ${r.code}), ${left.length} case(s) go to a new share` : '')
    );
    return left;
  }

  const queue = balance(names, seconds, shares).map((s) => s.names);
  async function lane() {
    for (let share; (share = queue.shift());) {
      const left = await runShare(share);
      if (left.length) queue.push(left);
    }
  }
  await Promise.all(Array.from({ length: jobs }, lane));

  // each failure again, alone, with the console reporter: its expressions in the log
  for (const [name, why] of failed) {
    if (why.startsWith('did not finish') || why.startsWith('its process ended before') || !names.includes(name)) {
      console.log(`attnlab: FAILED "${name}": ${why}`);
      continue;
    }
    const list = path.join(work, 'failed.txt');
    writeFileSync(list, `${escapeName(name)}\n`);
    const r = await exec(['-f', list]);
    const alone = r.code === 0 ? 'it PASSES when run alone: a case before it in its share changed its outcome' : '';
    console.log(`attnlab: FAILED "${name}": ${why}${alone ? `; ${alone}` : ''}\n${r.out}`);
  }
  writeFileSync(timesFile, JSON.stringify({ ...seconds, ...took }, null, 1));
  const missing = names.filter((n) => !passed.has(n) && !failed.has(n) && !skipped.has(n));
  for (const n of missing) failed.set(n, 'never reported');
  console.log(
    `attnlab: ${path.basename(dir)}: ${names.length} test cases, ${passed.size} passed, ${failed.size} failed, ${skipped.size} skipped` +
      (skipped.size ? ` (${[...skipped].join('; ')})` : '')
  );
  return { passed: passed.size, failed: failed.size, skipped: skipped.size };
}
