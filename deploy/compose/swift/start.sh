#!/bin/bash
# Starts a single-node Swift with s3api (deploy/compose/swift/Containerfile): memcached, the
# object, container and account servers on loopback ports, the proxy on 0.0.0.0:8080. PORT,
# BACKEND_PORT (the first of the three backends' ports) and MEMCACHED_PORT move them (a test
# runs it on the host's network).
set -eu
: "${S3_ACCESS_KEY_ID:?S3_ACCESS_KEY_ID (account:user) is required}"
: "${S3_SECRET_ACCESS_KEY:?S3_SECRET_ACCESS_KEY is required}"
D=/srv/swift
PORT=${PORT:-8080}
BACKEND_PORT=${BACKEND_PORT:-6200}
MEMCACHED_PORT=${MEMCACHED_PORT:-11211}
mkdir -p "$D/etc" "$D/node/d1"
# The hash suffix places every object: made once, kept with the data.
[ -f "$D/etc/swift.conf" ] || cat >"$D/etc/swift.conf" <<EOC
[swift-hash]
swift_hash_path_suffix = $(head -c16 /dev/urandom | od -An -tx1 | tr -d ' \n')
swift_hash_path_prefix = nimbus
[storage-policy:0]
name = Policy-0
default = yes
EOC
common="[DEFAULT]
swift_dir = $D/etc
devices = $D/node
mount_check = false
bind_ip = 127.0.0.1
workers = 1
user = swift
log_level = WARNING"
i=0
for svc in object container account; do
  port=$((BACKEND_PORT + i)); i=$((i + 1))
  printf '%s\nbind_port = %s\n\n[pipeline:main]\npipeline = %s-server\n\n[app:%s-server]\nuse = egg:swift#%s\n' "$common" $port $svc $svc $svc >"$D/etc/$svc-server.conf"
  if [ ! -f "$D/etc/$svc.ring.gz" ]; then
    (cd "$D/etc" && swift-ring-builder $svc.builder create 8 1 1 >/dev/null \
      && swift-ring-builder $svc.builder add r1z1-127.0.0.1:$port/d1 100 >/dev/null \
      && swift-ring-builder $svc.builder rebalance >/dev/null || true)
  fi
done
printf '\n[object-replicator]\n[object-auditor]\n[object-updater]\n' >>"$D/etc/object-server.conf"
printf '\n[container-replicator]\n[container-updater]\n[container-sync]\n[container-auditor]\n' >>"$D/etc/container-server.conf"
printf '\n[account-replicator]\n[account-auditor]\n[account-reaper]\n' >>"$D/etc/account-server.conf"
account=${S3_ACCESS_KEY_ID%%:*}
user=${S3_ACCESS_KEY_ID#*:}
cat >"$D/etc/proxy-server.conf" <<EOC
[DEFAULT]
swift_dir = $D/etc
bind_ip = 0.0.0.0
bind_port = $PORT
workers = 2
user = swift
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_${account}_${user} = ${S3_SECRET_ACCESS_KEY} .admin
reseller_prefix = AUTH

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MEMCACHED_PORT

[filter:catch_errors]
use = egg:swift#catch_errors
[filter:gatekeeper]
use = egg:swift#gatekeeper
[filter:healthcheck]
use = egg:swift#healthcheck
[filter:proxy-logging]
use = egg:swift#proxy_logging
[filter:listing_formats]
use = egg:swift#listing_formats
[filter:bulk]
use = egg:swift#bulk
[filter:copy]
use = egg:swift#copy
[filter:slo]
use = egg:swift#slo
[filter:dlo]
use = egg:swift#dlo
EOC
chown -R swift:swift "$D"
chmod 0600 "$D/etc/proxy-server.conf"
memcached -u nobody -l 127.0.0.1 -p "$MEMCACHED_PORT" -m 64 &
for svc in object container account proxy; do
  swift-$svc-server "$D/etc/$svc-server.conf" &
done
# One process gone: stop the rest, and let the container's restart policy start it again.
trap 'kill $(jobs -p) 2>/dev/null' TERM INT
wait -n
kill $(jobs -p) 2>/dev/null || true
