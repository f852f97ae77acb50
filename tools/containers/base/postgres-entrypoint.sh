#!/bin/bash
# The official postgres image's entrypoint contract, for the stand-in image: `postgres` (or options alone) runs the
# server as the postgres user; on an empty PGDATA it first runs initdb with POSTGRES_USER (default postgres) and
# POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust), creates POSTGRES_DB (default the user's
# name), passes POSTGRES_INITDB_ARGS to initdb, and runs /docker-entrypoint-initdb.d/*.sh and *.sql against it on a
# socket-only temporary server.
set -Eeo pipefail

if [ "${1#-}" != "$1" ]; then
  set -- postgres "$@"
fi

if [ "$1" = 'postgres' ] && [ "$(id -u)" = '0' ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi

if [ "$1" = 'postgres' ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_USER:=postgres}"
  : "${POSTGRES_DB:=$POSTGRES_USER}"
  auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != 'trust' ]; then
    echo 'error: POSTGRES_PASSWORD is not set (or set POSTGRES_HOST_AUTH_METHOD=trust)' >&2
    exit 1
  fi
  password=()
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    pwfile="$(mktemp)"
    printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
    password=(--pwfile="$pwfile")
  fi
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of options, as in the official image
  initdb --username="$POSTGRES_USER" "${password[@]}" --auth-local=trust --auth-host="$auth" \
    --encoding=UTF8 --locale=C.UTF-8 ${POSTGRES_INITDB_ARGS:-} -D "$PGDATA" >/dev/null
  rm -f "${pwfile:-}"
  {
    echo "listen_addresses = '*'"
    echo "unix_socket_directories = '/var/run/postgresql'"
  } >>"$PGDATA/postgresql.conf"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"

  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start >/dev/null
  psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --host /var/run/postgresql --port 5432 --username "$POSTGRES_USER")
  if [ "$POSTGRES_DB" != 'postgres' ]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" -q <<<'CREATE DATABASE :"db";'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -q -f "$f" ;;
      *.sql.gz) echo "running $f"; gunzip -c "$f" | "${psql[@]}" --dbname "$POSTGRES_DB" -q ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
