#!/bin/sh
# Starts a local PostgreSQL for the job store tests (Debian 12, run as root): installs postgresql if it is missing,
# starts its cluster, creates role `mixrender` (password `mixrender`) and database `mixrender_test` if they are
# missing, and prints the URL for MIXRENDER_TEST_POSTGRES_URL. Safe to run again.
set -eu

if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi

# The newest installed version's cluster (Debian creates `main` when it installs the server; a container image
# that removed it gets a new one).
version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main"' | grep -q .; then
    pg_createcluster "$version" main
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" && $4 == "online"' | grep -q .; then
    pg_ctlcluster "$version" main start
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" { print $3 }')

# Wait until the server accepts connections (a fresh start takes a moment).
tries=0
until su postgres -c "pg_isready -q -p $port"; do
    tries=$((tries + 1))
    if [ "$tries" -ge 30 ]; then
        echo "start-postgres.sh: PostgreSQL $version on port $port did not accept connections in 30 s" >&2
        exit 1
    fi
    sleep 1
done

# One statement as the postgres superuser; prints its result (-tA: bare values).
psql_admin() { su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -tAq -c \"$1\""; }

if [ "$(psql_admin "SELECT 1 FROM pg_roles WHERE rolname = 'mixrender'")" = "1" ]; then
    # The password may have been changed by hand: the URL below must work.
    psql_admin "ALTER ROLE mixrender LOGIN CREATEDB PASSWORD 'mixrender'"
else
    psql_admin "CREATE ROLE mixrender LOGIN CREATEDB PASSWORD 'mixrender'"
fi
if [ "$(psql_admin "SELECT 1 FROM pg_database WHERE datname = 'mixrender_test'")" != "1" ]; then
    psql_admin "CREATE DATABASE mixrender_test OWNER mixrender"
fi

echo "postgres://mixrender:mixrender@127.0.0.1:$port/mixrender_test"
