#!/bin/sh
# The container's `nimbus` (its entry point, and what `docker exec CONTAINER nimbus key show`
# runs). The admin key may come from a file, NIMBUS_API_KEY_FILE (a Docker or podman secret,
# e.g. /run/secrets/nimbus_api_key): it is then in no image layer, no `docker inspect` output
# and no argv. The daemon reads NIMBUS_API_KEY; without either it keeps a key of its own in
# /data/admin.key (0600), in the volume, the same after a restart.
set -eu
if [ -n "${NIMBUS_API_KEY_FILE:-}" ]; then
  if [ ! -r "$NIMBUS_API_KEY_FILE" ]; then
    echo "nimbus: NIMBUS_API_KEY_FILE=$NIMBUS_API_KEY_FILE cannot be read (user $(id -u))" >&2
    exit 1
  fi
  # $(…) drops the file's trailing newline.
  NIMBUS_API_KEY=$(cat "$NIMBUS_API_KEY_FILE")
  if [ -z "$NIMBUS_API_KEY" ]; then
    echo "nimbus: NIMBUS_API_KEY_FILE=$NIMBUS_API_KEY_FILE is empty" >&2
    exit 1
  fi
  export NIMBUS_API_KEY
  unset NIMBUS_API_KEY_FILE
fi
exec node /opt/nimbus/bin/nimbus.js "$@"
