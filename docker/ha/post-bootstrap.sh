#!/bin/bash
# Patroni's post_bootstrap: run once, on the node that initialised the cluster, with a superuser connection string as
# its argument. One role for the apps, owning one database per app (the apps migrate their own tables at boot).
set -euo pipefail
: "${APP_DATABASE_PASSWORD:?APP_DATABASE_PASSWORD is required}"
psql "$1" -v ON_ERROR_STOP=1 -q --set password="$APP_DATABASE_PASSWORD" <<'SQL'
CREATE ROLE portcullis LOGIN PASSWORD :'password';
CREATE DATABASE authorization_server OWNER portcullis;
CREATE DATABASE protected_server OWNER portcullis;
CREATE DATABASE proxy OWNER portcullis;
SQL
