#!/bin/sh
# One-shot schema set-up for Temporal on PostgreSQL (runs in temporalio/admin-tools before the server starts).
# Idempotent: `create` fails harmlessly when the database exists; setup/update-schema are no-ops when current.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
PORT="${DB_PORT:-5432}"
sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$PORT" -u "$POSTGRES_USER" "$@"; }
for db in temporal temporal_visibility; do
  schema=$([ "$db" = temporal ] && echo temporal || echo visibility)
  sql --db "$db" create || echo "database $db exists"
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "/etc/temporal/schema/postgresql/v12/$schema/versioned"
done
echo "Temporal schema is current"
