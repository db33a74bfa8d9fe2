#!/usr/bin/env bash
# The data-parallel collectives under `mpirun -np 2` (attnlab_dist_test, see its top comment):
# sums and the bucketed sync against hand-computed values, a config mismatch reported by both
# ranks, and a rank killed with SIGKILL ending the job non-zero within seconds. Open MPI's
# default on a killed rank (4.1): mpirun notices the signal, prints "mpirun noticed that process
# rank 1 ... exited on signal 9 (Killed)", kills the surviving ranks and exits 137, in about a
# second; the survivors never see an MPI error.
# Usage: mpi_test.sh MPIEXEC attnlab_dist_test
set -u
MPIEXEC="$1"
BIN="$2"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
fails=0

# Two ranks on a 2-core (or smaller) machine; root in containers.
export OMPI_MCA_rmaps_base_oversubscribe=1
ARGS=(-np 2 --oversubscribe)
[ "$(id -u)" = 0 ] && ARGS+=(--allow-run-as-root)

run() {  # run MODE: mpirun the mode, output in $DIR/out, exit status in rc, seconds in secs
  local t0=$SECONDS
  timeout -k 5 60 "$MPIEXEC" "${ARGS[@]}" "$BIN" "$1" >"$DIR/out" 2>&1
  rc=$?
  secs=$((SECONDS - t0))
}
fail() {
  echo "FAIL $1 (exit $rc, ${secs} s):"
  sed 's/^/  | /' "$DIR/out" | head -40
  fails=$((fails + 1))
}

run sums
{ [ $rc -eq 0 ] && grep -q "rank 0: sums ok" "$DIR/out" &&
  grep -q "rank 1: sums ok" "$DIR/out"; } ||
  fail "sums: every rank checks its sums"

run mismatch
{ [ $rc -ne 0 ] && grep -q "rank 0: error: the ranks disagree on the model config" "$DIR/out" &&
  grep -q "rank 1: error: the ranks disagree on the model config" "$DIR/out"; } ||
  fail "mismatch: one clear error on both ranks, non-zero exit"

run kill
# (mpirun itself exits 137 = 128 + SIGKILL here; `timeout` would exit 124 after 60 s.)
{ [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $secs -le 20 ] &&
  ! grep -q "FAIL" "$DIR/out" && grep -qi "signal 9\|killed" "$DIR/out"; } ||
  fail "kill: the job ends non-zero within seconds of a rank's SIGKILL"

[ $fails -eq 0 ] && echo "mpi_test: all passed"
exit $((fails > 0))
