#!/bin/bash
# One role per container of the highly available stack (docker/ha/compose.yaml), named by the first argument:
#   etcd       an etcd member; its settings in ETCD_* variables (etcd reads them itself)
#   patroni    a PostgreSQL node under Patroni; its own settings in PATRONI_* variables over /etc/patroni/patroni.yml
#   haproxy    HAProxy with /etc/haproxy/haproxy.cfg, in the foreground
#   redis      redis-server with the remaining arguments
#   sentinel   a Redis Sentinel on SENTINEL_PORT watching the master REDIS_MASTER_NAME first found at
#              REDIS_MASTER_HOST:REDIS_MASTER_PORT (a quorum of SENTINEL_QUORUM, default 2)
# Every server runs as its package's own user, never root.
set -euo pipefail

as() {
  local user="$1"
  shift
  exec setpriv --reuid="$user" --regid="$user" --init-groups "$@"
}

role="${1:-}"
shift || true
case "$role" in
  etcd)
    : "${ETCD_DATA_DIR:=/var/lib/etcd/data}"
    export ETCD_DATA_DIR
    mkdir -p "$ETCD_DATA_DIR"
    chown -R etcd:etcd /var/lib/etcd
    chmod 700 "$ETCD_DATA_DIR"
    as etcd etcd "$@"
    ;;
  patroni)
    mkdir -p /var/lib/postgresql/data /var/run/postgresql
    chown -R postgres:postgres /var/lib/postgresql/data /var/run/postgresql
    chmod 700 /var/lib/postgresql/data
    as postgres patroni /etc/patroni/patroni.yml
    ;;
  haproxy)
    # -W: master-worker; -db: in the foreground, logs on standard error.
    exec haproxy -W -db -f /etc/haproxy/haproxy.cfg "$@"
    ;;
  redis)
    chown -R redis:redis /data
    cd /data
    as redis redis-server "$@"
    ;;
  sentinel)
    : "${SENTINEL_PORT:?}" "${REDIS_MASTER_NAME:?}" "${REDIS_MASTER_HOST:?}" "${REDIS_MASTER_PORT:?}"
    # Sentinel rewrites its configuration as it learns the replicas, the other sentinels and failovers: it is
    # written once, and a restarted sentinel keeps what it learned.
    conf=/data/sentinel.conf
    if [[ ! -s "$conf" ]]; then
      cat >"$conf" <<CONF
port $SENTINEL_PORT
bind 127.0.0.1
protected-mode no
dir /data
sentinel monitor $REDIS_MASTER_NAME $REDIS_MASTER_HOST $REDIS_MASTER_PORT ${SENTINEL_QUORUM:-2}
sentinel down-after-milliseconds $REDIS_MASTER_NAME ${SENTINEL_DOWN_AFTER_MS:-2000}
sentinel failover-timeout $REDIS_MASTER_NAME ${SENTINEL_FAILOVER_TIMEOUT_MS:-10000}
sentinel parallel-syncs $REDIS_MASTER_NAME 1
CONF
    fi
    chown -R redis:redis /data
    cd /data
    as redis redis-sentinel "$conf"
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
