# A stand-in for redis:7-alpine where no registry answers: Debian bookworm's redis-server 7, run as the redis user
# from /data, without protected mode when no configuration file is given (as the official image does).
ARG DEBIAN_IMAGE=portcullis-base/debian:bookworm
FROM ${DEBIAN_IMAGE}
RUN apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME /data
ENTRYPOINT ["docker-entrypoint.sh"]
EXPOSE 6379
CMD ["redis-server"]
