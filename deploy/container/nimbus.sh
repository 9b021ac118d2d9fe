#!/bin/sh
# The container's `nimbus` (its entry point, and what `docker exec CONTAINER nimbus key show`
# runs). The admin key may come from a file, NIMBUS_API_KEY_FILE (a Docker or podman secret,
# e.g. /run/secrets/nimbus_api_key), which the daemon reads itself: the key is then in no image
# layer, no `docker inspect` output and no argv. Without it or NIMBUS_API_KEY the daemon keeps
# a key of its own in /data/admin.key (0600), in the volume, the same after a restart.
exec node /opt/nimbus/bin/nimbus.js "$@"
