#!/bin/bash
# The official redis image's entrypoint contract: options alone run redis-server; protected mode is off unless the
# options or a configuration file set it (the container's network is the boundary); the server runs as the redis
# user.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = 'redis-server' ]; then
  # Before the user's own options (so an explicit --protected-mode wins), after a configuration file (which must come
  # first); a file that sets protected-mode itself keeps its setting.
  case "${2:-}" in
    *.conf)
      if ! grep -qiE '^[[:space:]]*protected-mode' "$2" 2>/dev/null; then
        set -- "$1" "$2" --protected-mode no "${@:3}"
      fi
      ;;
    *) set -- "$1" --protected-mode no "${@:2}" ;;
  esac
  if [ "$(id -u)" = '0' ]; then
    chown -R redis:redis /data 2>/dev/null || true
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
