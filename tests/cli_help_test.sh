#!/bin/bash
# Every subcommand answers --help (and -h) with its usage on standard output
# and exit 0, as `scoria --help` says they do.
set -u
scoria=$1
status=0
for cmd in simulate serve ctl plugins check-config trace; do
  for flag in --help -h; do
    out=$("$scoria" "$cmd" "$flag" 2>&1 >/dev/null)
    err=$out
    out=$("$scoria" "$cmd" "$flag" 2>/dev/null)
    rc=$?
    if [ "$rc" -ne 0 ] || [[ "$out" != "usage: scoria $cmd"* ]] || [ -n "$err" ]; then
      echo "scoria $cmd $flag: exit $rc; stdout: ${out:0:200}; stderr: ${err:0:200}"
      status=1
    fi
  done
done
exit $status
