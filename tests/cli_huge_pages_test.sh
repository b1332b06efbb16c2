#!/bin/bash
# The commands that hold a cluster start again, once, with glibc's heap on
# transparent huge pages (cli/huge_pages.h) where the kernel gives them only
# on request; a tunable the user set either way is kept as it is.
# Usage: cli_huge_pages_test.sh SCORIA CONFIG SANITIZED(ON|OFF)
set -u
scoria=$1 config=$2 sanitized=$3
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
mkfifo "$dir/cluster"
mode=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
status=0

# "restarted" or "as started", and GLIBC_TUNABLES, as /proc shows simulate
# once it waits to open its input (a FIFO nobody writes yet). glibc may cut
# the tunables' text it parsed when one follows another, so the restart is
# told by the marker it sets.
environment_of_simulate() {
  env "$@" "$scoria" simulate --config "$config" "$dir/cluster" >/dev/null 2>&1 &
  local pid=$! i
  for ((i = 0; i < 200; i++)); do
    if [[ $(cat /proc/$pid/wchan 2>/dev/null) == wait_for_partner ]]; then
      local vars
      vars=$(tr '\0' '\n' </proc/$pid/environ)
      if grep -q '^SCORIA_HUGE_PAGES_RESTART=' <<<"$vars"; then
        echo -n "restarted "
      else
        echo -n "as started "
      fi
      grep '^GLIBC_TUNABLES=' <<<"$vars" || echo "GLIBC_TUNABLES unset"
      kill $pid
      wait $pid 2>/dev/null
      return
    fi
    sleep 0.05
  done
  echo "simulate never waited on its input"
  kill $pid
}

expect() {  # expect WHAT GOT
  if [[ $2 != "$1" ]]; then
    echo "expected $1, got $2"
    status=1
  fi
}

asked=$(environment_of_simulate -u GLIBC_TUNABLES)
kept=$(environment_of_simulate GLIBC_TUNABLES=glibc.malloc.hugetlb=0)
joined=$(environment_of_simulate GLIBC_TUNABLES=glibc.malloc.arena_max=4)
expect "as started GLIBC_TUNABLES=glibc.malloc.hugetlb=0" "$kept"
if [[ $sanitized == ON || $mode != *"[madvise]"* ]]; then
  # Nothing to ask: the sanitizers' allocator, or a kernel that gives huge
  # pages always or never.
  expect "as started GLIBC_TUNABLES unset" "$asked"
  expect "as started GLIBC_TUNABLES=glibc.malloc.arena_max=4" "$joined"
else
  expect "restarted GLIBC_TUNABLES=glibc.malloc.hugetlb=1" "$asked"
  expect "restarted GLIBC_TUNABLES=glibc.malloc.arena_max=4" "${joined%%:*}"
fi
exit $status
