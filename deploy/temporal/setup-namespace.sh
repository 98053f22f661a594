#!/bin/sh
# One-shot namespace + search-attribute set-up (runs in temporalio/admin-tools once the server is healthy).
# Idempotent: existing namespace / attributes are kept. The attributes are the ones the Web UI filters on
# (core/settings.py SEARCH_ATTRIBUTES; tests/unit/platform/test_deploy_compose.py keeps the two lists equal).
set -eu
NS="${TEMPORAL_NAMESPACE:-default}"
temporal operator namespace describe -n "$NS" >/dev/null 2>&1 || temporal operator namespace create -n "$NS" --retention 7d
for attr in ColloquyPipeline ColloquyPhase ColloquyTopic ColloquyStatus; do
  temporal operator search-attribute create -n "$NS" --name "$attr" --type Keyword 2>/dev/null || echo "$attr exists"
done
echo "namespace $NS ready"
