# Nimbus as a container image (docs/shipping.md, "In a container").
#
#   docker build -t nimbus .
#   docker run -d --name nimbus -p 7878:7878 -v nimbus-data:/data nimbus
#   docker exec nimbus nimbus key show          # the admin key, kept in the volume
#
# One volume, /data: db.json, the storage folder, the admin key (when none is given), logs.
# Configured by NIMBUS_* variables (README, "Configuration"); the admin key from a secret file
# (NIMBUS_API_KEY_FILE, e.g. /run/secrets/nimbus_api_key) or NIMBUS_API_KEY. Published under
# another name or port than localhost:7878, set NIMBUS_PUBLIC_URL to the address people use:
# the daemon answers only to Host names it knows (DNS rebinding).
#
# BASE: any Debian-based image with Node.js 22.13+ and npm at /usr/local/bin. The tests build
# on a local one (test/ship/container.test.ts), since no image registry is reachable there.
ARG BASE=node:22-bookworm-slim

# --- build: every dependency, the compiled daemon and the web UI, packed as npm would. ---
FROM ${BASE} AS build
WORKDIR /src
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
# Dependencies first: this layer is reused until package.json or the lockfile changes. No
# install scripts: Electron's would download its binary, which no server needs.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --prefer-offline --no-audit --no-fund
COPY . .
# The files `npm pack` ships ("files" in package.json: bin/, dist/, renderer/dist/, no source
# maps), unpacked into /out: the image holds what the npm tarball holds.
RUN npm run build \
  && npm pack --ignore-scripts --pack-destination /tmp \
  && mkdir /out \
  && tar -xzf /tmp/nimbus-*.tgz -C /out --strip-components=1

# --- deps: production dependencies only, exactly the lockfile's. ---
FROM ${BASE} AS deps
WORKDIR /opt/nimbus
COPY package.json package-lock.json ./
# No install scripts: the prepare step would build (nothing to build here), and the native
# modules (sharp, @parcel/watcher, @napi-rs/keyring, @node-rs/argon2) come prebuilt.
RUN npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund

# --- runtime: Node, the package, its runtime dependencies; a user of its own. ---
FROM ${BASE}
RUN groupadd --system --gid 10001 nimbus \
  && useradd --system --uid 10001 --gid nimbus --home-dir /data --no-create-home --shell /usr/sbin/nologin nimbus \
  && install -d -o nimbus -g nimbus -m 0700 /data
COPY --from=build /out /opt/nimbus
COPY --from=deps /opt/nimbus/node_modules /opt/nimbus/node_modules
COPY deploy/container/nimbus.sh /usr/local/bin/nimbus
COPY deploy/container/healthcheck.mjs /opt/nimbus/healthcheck.mjs
# Every address inside the container (the runtime publishes the port); the data in the volume;
# no desktop keychain: the admin key is NIMBUS_API_KEY(_FILE), else /data/admin.key (0600).
ENV NODE_ENV=production \
  NIMBUS_HOST=0.0.0.0 \
  NIMBUS_PORT=7878 \
  NIMBUS_DATA_DIR=/data \
  NIMBUS_KEYCHAIN=off
USER nimbus
WORKDIR /data
VOLUME ["/data"]
EXPOSE 7878
# GET /api/health on the daemon's own port: 200 while it serves ("ok", or "degraded" when only
# the bucket is unreachable), 503 when the database or the storage folder is.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/opt/nimbus/healthcheck.mjs"]
# `docker run IMAGE key show` runs `nimbus key show`; the default is the daemon. SIGTERM (docker
# stop) stops it cleanly: writes in flight finish, the lock is released.
ENTRYPOINT ["nimbus"]
CMD ["daemon"]
