#!/usr/bin/env bash
# Init script of `db-primary` (docker-compose.yml, profile `replica`): makes the primary one that the streaming
# replica `db-replica` can copy and follow, with synchronous `remote_apply` replication (docs/operations.md,
# "Read replicas"). Mounted in /docker-entrypoint-initdb.d, so the official postgres image's entrypoint runs it
# once, on a new volume only: as the postgres user, after initdb and after it appended `host all all all
# scram-sha-256` to pg_hba.conf, while its temporary server listens on the Unix socket only. The entrypoint
# sources it (or runs it when the file is executable), so it sets no shell option and never calls `exit`.
#
# Environment (docker-compose.yml): POSTGRES_USER, POSTGRES_DB, POSTGRES_REPLICATION_USER,
# POSTGRES_REPLICATION_PASSWORD, SYNCHRONOUS_STANDBY_NAMES.

# 1. The role the replica streams as: REPLICATION and LOGIN only, not the superuser the service uses.
# 2. Synchronous replication. ALTER SYSTEM writes postgresql.auto.conf, which the real server reads when it starts
#    after initialisation. Not `-c` options on the command line: the entrypoint passes those to its temporary
#    server too, where no standby can connect (no TCP) and the initialisation's own commits (CREATE DATABASE, the
#    role settings) would wait for one forever.
#    - synchronous_standby_names: the replica's application_name; a commit waits for it.
#    - synchronous_commit = remote_apply: waits until the replica has applied the commit, so a read on the
#      replica right after a write's answer sees the write (read-your-writes).
#    - wal_keep_size: WAL kept for a replica that was stopped a while to catch up without a base backup
#      (no replication slot: one left behind by a replica volume removed would keep WAL forever).
psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password \
  --username "${POSTGRES_USER:?}" --dbname "${POSTGRES_DB:?}" \
  --set replication_user="${POSTGRES_REPLICATION_USER:?set POSTGRES_REPLICATION_USER}" \
  --set replication_password="${POSTGRES_REPLICATION_PASSWORD:?set POSTGRES_REPLICATION_PASSWORD}" \
  --set standby_names="${SYNCHRONOUS_STANDBY_NAMES:?set SYNCHRONOUS_STANDBY_NAMES}" <<'SQL'
CREATE ROLE :"replication_user" WITH LOGIN REPLICATION PASSWORD :'replication_password';
ALTER SYSTEM SET synchronous_standby_names = :'standby_names';
ALTER SYSTEM SET synchronous_commit = 'remote_apply';
ALTER SYSTEM SET wal_keep_size = '512MB';
SQL

# 3. Replication connections over TCP. The image's `host all all all …` line does not match them: the `all`
#    database matches every database but not `replication`. Read when the real server starts.
printf '\n# streaming replicas (docker-compose.yml, profile replica)\nhost replication %s all scram-sha-256\n' \
  "$POSTGRES_REPLICATION_USER" >> "${PGDATA:?}/pg_hba.conf"
