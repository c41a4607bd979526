#!/usr/bin/env bash
# Runs the pytest plugin's own tests (python/tests) with real pytest and httpx from the
# committed lock (exact versions, sha256 hashes), in an ignored virtual environment,
# against this checkout's bench. A lock that did not change is not reinstalled.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/python"

python=$(command -v python3.11 || command -v python3)
venv=.venv
stamp=$(sha256sum test.lock | cut -c1-64)
if [ ! -f "$venv/.lock-sha256" ] || [ "$(cat "$venv/.lock-sha256")" != "$stamp" ]; then
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # --no-deps: the lock names every package, each with its hash.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --require-hashes -r test.lock 2> >(grep -v "^WARNING: Location" >&2)
  echo "$stamp" > "$venv/.lock-sha256"
fi
# The plugin itself, as `pip install ./python` installs it (flit_core from the lock, no download).
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --no-build-isolation --force-reinstall . 2> >(grep -v "^WARNING: Location" >&2)

# pytest's temporary folders live in one of ours, removed when the run ends.
base=$(mktemp -d "${TMPDIR:-/tmp}/tapedeck-pytest-XXXXXX")
trap 'rm -rf "$base"' EXIT
TAPEDECK_BENCH="node $root/bin/bench.js" "$venv/bin/python" -m pytest -q -p no:cacheprovider --basetemp="$base/t" "$@"
