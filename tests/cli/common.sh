# Helpers shared by the attn CLI tests (sourced; the caller sets DIR and fails=0). Each check
# prints one FAIL line and counts a failure instead of stopping the script.
ok() {  # ok NAME CMD...: must exit 0
  local name="$1"; shift
  if ! "$@" >"$DIR/out" 2>"$DIR/err"; then
    echo "FAIL $name: exit $?: $(cat "$DIR/err")"; fails=$((fails + 1))
  fi
}
bad() {  # bad NAME CMD...: must exit 1 or 2 with one stderr line
  local name="$1"; shift
  "$@" >"$DIR/out" 2>"$DIR/err"
  local rc=$? lines
  lines=$(wc -l <"$DIR/err")
  if [ $rc -eq 0 ] || [ $rc -gt 2 ] || [ "$lines" -ne 1 ]; then
    echo "FAIL $name: exit $rc, $lines stderr lines: $(head -c 300 "$DIR/err")"; fails=$((fails + 1))
  fi
}
has() {  # has NAME PATTERN: stdout of the last command matches
  grep -q "$2" "$DIR/out" || { echo "FAIL $1: stdout lacks $2: $(head -c 200 "$DIR/out")"; fails=$((fails + 1)); }
}

interrupted() {  # interrupted NAME OUT CMD...: SIGINT (or $SIG) after step 3 must save OUT and exit 130
  local name="$1" out="$2" sig="${SIG:-INT}"; shift 2
  # a fresh log: a stale "step 3/" from an earlier call would send SIGINT before the run has
  # installed its handler (a background job starts with SIGINT ignored)
  rm -f "$DIR/int.err"
  "$@" --log-every 1 >"$DIR/out" 2>"$DIR/int.err" &
  local pid=$! i rc
  for i in $(seq 300); do grep -q "^step 3/" "$DIR/int.err" 2>/dev/null && break; sleep 0.1; done
  kill -"$sig" $pid
  for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -0 $pid 2>/dev/null && { kill -KILL $pid; echo "no exit 60 s after SIG$sig" >>"$DIR/int.err"; }
  wait $pid; rc=$?
  if [ $rc -ne 130 ] || ! grep -q "^interrupted: saved step [0-9]" "$DIR/int.err" || [ ! -s "$out" ] || ls "$out".tmp* >/dev/null 2>&1; then
    echo "FAIL $name: exit $rc: $(tail -n 2 "$DIR/int.err")"; fails=$((fails + 1))
  fi
}
