#!/usr/bin/env bash
# Builds the seed 003 workspace for the shell tests in $1 (created; must not exist or be empty):
# the fixture test/fixtures/aurora as a git repository with two dated commits and one untracked file,
# conversation logs in a knowledge folder, then `quarry index` and recorded reasoning patterns.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ws="$1"
: "${QUARRY:=quarry}"
mkdir -p "$ws"
cp -R "$here/../fixtures/aurora/." "$ws/"
mkdir -p "$ws/.quarry"
printf 'knowledge:\n  folders: [logs/conversations]\n' > "$ws/.quarry/config.yml"

export GIT_AUTHOR_NAME=Quarry GIT_AUTHOR_EMAIL=quarry@example.com GIT_COMMITTER_NAME=Quarry GIT_COMMITTER_EMAIL=quarry@example.com
cd "$ws"
git init -q -b main .
git add -A
GIT_AUTHOR_DATE=2025-11-01T10:00:00Z GIT_COMMITTER_DATE=2025-11-01T10:00:00Z git commit -q -m "initial import"
printf '\n\ndef revoke_all_sessions(manager) -> int:\n    """Log every session out (after a password change)."""\n    count = len(manager.sessions)\n    manager.sessions.clear()\n    return count\n' >> packages/auth/auth_manager.py
git add -A
GIT_AUTHOR_DATE=2025-12-01T10:00:00Z GIT_COMMITTER_DATE=2025-12-01T10:00:00Z git commit -q -m "auth: revoke sessions"
mkdir -p scratch
printf 'def scratch_user_report(users):\n    """Draft: count active users for the weekly report."""\n    return sum(1 for u in users if u.active)\n' > scratch/user_report.py

$QUARRY index >/dev/null
record() { $QUARRY pattern record "$@" >/dev/null; }
record --id decomposition-pattern -t decomposition -s 0.9 -u 4 \
  -d "Decomposition pattern: split a complex query into sub-goals before retrieval, then verify each partial answer." \
  -c "SOAROrchestrator.decompose and verify in orchestrator.py"
record --id auth-pattern -t implementation -s 0.85 -u 3 \
  -d "Authentication flow: check credentials with authenticate_user, open a session, refresh OAuth tokens before expiry." \
  -c "auth_manager.py AuthManager.login and refresh_access_token"
record --id search-algorithm-pattern -t optimization -s 0.8 \
  -d "Search algorithm: run BM25 first so exact identifier matches survive, then re-rank the candidates semantically." \
  -c "hybrid_retriever.py HybridRetriever.retrieve"
record --id memory-indexing-pattern -t optimization -s 0.75 \
  -d "Memory indexing: skip unchanged files by content hash and embed only new chunks." \
  -c "memory_indexer.py MemoryIndexer.index_file"
record --id error-handling-pattern -t verification -s 0.7 \
  -d "Error handling: wrap failures in AuroraError with the cause and log once at the boundary." \
  -c "errors.py handle_error"
record --id guess-config-format -t verification -s 0.2 \
  -d "Guess the configuration format from the file extension (failed: YAML files named .conf)."
