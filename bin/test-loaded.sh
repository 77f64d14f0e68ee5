#!/usr/bin/env bash
# The test command beside CPU burners (one busy core each; GRIDWIRE_BURNERS, default 1), as a CI
# machine shared with other work may be: the suite must stay green there.
set -euo pipefail
cd "$(dirname "$0")/.."
burners=${GRIDWIRE_BURNERS:-1}
pids=()
for _ in $(seq "$burners"); do
  node -e 'for (;;) {}' &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
npm test
