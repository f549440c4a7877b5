#!/usr/bin/env bash
# Entrypoint of `db-replica` (docker-compose.yml, profile `replica`): a hot standby streaming from the primary
# (docs/operations.md, "Read replicas"), on the official postgres image.
#
# On a volume without a data directory it first copies the primary with `pg_basebackup -R`, which also writes
# standby.signal and primary_conninfo (host, user, password, application_name) into the copy's
# postgresql.auto.conf. Then it hands over to the image's docker-entrypoint.sh, which skips initdb and the init
# scripts because PGDATA holds PG_VERSION, switches to the postgres user (gosu) when started as root, and execs
# postgres, which starts in standby mode and streams from the primary. The copy's postgresql.auto.conf also
# holds the primary's synchronous_standby_names and synchronous_commit: a standby does not use them.
#
# Environment (docker-compose.yml): PGDATA (a directory inside the volume, so that the copy is made beside it
# and renamed into place when complete), PRIMARY_HOST, PRIMARY_PORT (default 5432), REPLICATION_USER,
# REPLICATION_PASSWORD, STANDBY_NAME (the application_name the primary's synchronous_standby_names names).
set -Eeuo pipefail

: "${PGDATA:?}" "${PRIMARY_HOST:?}" "${REPLICATION_USER:?}" "${REPLICATION_PASSWORD:?}" "${STANDBY_NAME:?}"
primary_port="${PRIMARY_PORT:-5432}"

# Runs a command as the postgres user: through gosu when started as root (the image's default), else as is.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    gosu postgres "$@"
  else
    "$@"
  fi
}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -e "$PGDATA" ] && [ -n "$(ls -A "$PGDATA")" ]; then
    echo "replica: $PGDATA is not empty but holds no PG_VERSION: not a data directory; refusing to overwrite it" >&2
    exit 1
  fi
  # The copy goes to a directory beside PGDATA and is renamed when complete, so a copy cut short (container
  # stopped, primary restarted) is never taken for a data directory: the next start copies again.
  partial="$PGDATA.partial"
  rm -rf "$partial"
  mkdir -p -m 0700 "$partial"
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$partial"
  fi

  # Until postgres replaces this script, it is PID 1, which ignores signals it has no handler for: without this
  # trap `docker compose stop` would wait for SIGKILL.
  trap 'exit 143' INT TERM
  # depends_on waits for the primary's healthcheck, which its socket-only initialisation server already passes:
  # wait for TCP too.
  until pg_isready -q -h "$PRIMARY_HOST" -p "$primary_port"; do
    echo "replica: waiting for the primary at $PRIMARY_HOST:$primary_port"
    sleep 2
  done

  echo "replica: copying the primary at $PRIMARY_HOST:$primary_port (pg_basebackup -R)"
  PGPASSWORD="$REPLICATION_PASSWORD" as_postgres pg_basebackup \
    --pgdata="$partial" \
    --dbname="host=$PRIMARY_HOST port=$primary_port user=$REPLICATION_USER application_name=$STANDBY_NAME" \
    --write-recovery-conf --wal-method=stream --checkpoint=fast --no-password
  if [ -e "$PGDATA" ]; then
    rmdir "$PGDATA"
  fi
  mv "$partial" "$PGDATA"
  echo "replica: copy complete; starting as a hot standby named $STANDBY_NAME"
  trap - INT TERM
fi

if [ "$#" -eq 0 ]; then
  set -- postgres
fi
exec docker-entrypoint.sh "$@"
