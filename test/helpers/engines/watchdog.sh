#!/bin/sh
# Stops an engine home's servers once its owner process is gone, however it went (a vitest
# worker ends without running 'exit' handlers; a run may be killed). Usage: watchdog.sh HOME PID
# Mirrors stopHomeSync in home.ts.
home=$1 owner=$2
while kill -0 "$owner" 2>/dev/null; do sleep 1; done
[ -d "$home" ] || exit 0
pg_ctl=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)/pg_ctl
for data in "$home"/*/data; do
  [ -f "$data/postmaster.pid" ] || continue
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$pg_ctl" -D "$data" -m immediate -w stop
  else "$pg_ctl" -D "$data" -m immediate -w stop; fi
done >/dev/null 2>&1
for f in "$home"/*/run/*.pgid; do
  [ -f "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null
done
rm -rf "$home"
