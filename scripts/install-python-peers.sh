#!/usr/bin/env bash
# Installs the real Python servers npm run test:peers drives (omnigent, hermes-agent)
# from their committed locks (exact versions, sha256 hashes) into ignored virtual
# environments under test/peers/python/. A lock that did not change is not reinstalled.
set -euo pipefail
cd "$(dirname "$0")/../test/peers/python"

# The interpreter for a version: pyenv's when it has one, else pythonX.Y on PATH.
interpreter() {
  local version=$1 root
  root=$(pyenv root 2>/dev/null || true)
  for candidate in "$root"/versions/"$version"*/bin/python3; do
    [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  command -v "python${version}" || { echo "install-python-peers: no Python $version (pyenv install $version, or put python$version on PATH)" >&2; exit 2; }
}

install() {
  local name=$1 version=$2 venv="$1/.venv" stamp
  stamp=$(sha256sum "$name.lock" | cut -c1-64)
  if [ -f "$venv/.lock-sha256" ] && [ "$(cat "$venv/.lock-sha256")" = "$stamp" ]; then
    echo "install-python-peers: $name is installed from its lock"
    return
  fi
  rm -rf "$venv"
  mkdir -p "$name"
  "$(interpreter "$version")" -m venv "$venv"
  local started=$SECONDS
  # --no-deps: the lock already names every package, each with its hash.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --require-hashes -r "$name.lock" 2> >(grep -v "^WARNING: Location" >&2)
  echo "$stamp" > "$venv/.lock-sha256"
  echo "install-python-peers: $name installed in $((SECONDS - started)) s"
}

install omnigent 3.12
install hermes 3.11
install hermes-client 3.13
# The MCP Python SDK, for the FastMCP server the MCP peers record (test/peers/clients/fastmcp_server.py).
install mcp-fastmcp 3.12
# AG-UI servers of two projects, for the ag-ui family's peers (test/peers/clients/agui_*_server.py).
install agui-pydantic 3.12
install agui-langgraph 3.12
# The official A2A Python SDK's server, for the a2a family's peers (test/peers/clients/a2a_python_server.py).
install a2a-python 3.12
# Older releases, for the drift tests on real releases (test/drift/releases/).
install omnigent-0.19.0 3.12
install omnigent-0.18.0 3.12
install hermes-0.18.2 3.11
install agui-pydantic-2.60.0 3.12
