#!/usr/bin/env bash
# Usage: scripts/tsan.sh [extra swift test arguments]
# Runs the concurrency suites under ThreadSanitizer in .build-tsan and fails on any TSan report.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
status=0
swift test --sanitize=thread --scratch-path .build-tsan \
    --filter 'ContextQueueTests|NestedContextTests|MergeTests|StoreSharingTests|NotificationTests|ConcurrencyStressTests|RemoteChangeTests|QueryGenerationTests' "$@" 2>&1 | tee "$log" || status=$?
if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "tsan: ThreadSanitizer reported a race" >&2
    status=1
fi
rm -f "$log"
exit $status
