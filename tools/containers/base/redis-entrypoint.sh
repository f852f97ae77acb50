#!/bin/bash
# The official redis image's entrypoint contract: options alone run redis-server; without a configuration file,
# protected mode is off (the container's network is the boundary); the server runs as the redis user.
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
if [ "$1" = 'redis-server' ]; then
  case "${2:-}" in
    *.conf) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
  if [ "$(id -u)" = '0' ]; then
    chown -R redis:redis /data 2>/dev/null || true
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
