#!/usr/bin/env bash
# Writes a hash-pinned lock for one of the real Python servers npm run test:peers installs: every package pip
# resolves for the requirements, at the version it picks today, with the sha256 of the very file it downloaded.
# scripts/install-python-peers.sh then installs exactly that (--no-deps --require-hashes), nothing resolved again.
#
#   scripts/lock-python-peer.sh PYTHON_VERSION OUT.lock "what it is" REQUIREMENT...
#   scripts/lock-python-peer.sh 3.12 test/peers/python/omnigent-0.18.0.lock "omnigent 0.18.0, the server" omnigent==0.18.0
#
# With LIKE=another.lock, every package that lock pins is held to its version where the requirements allow (the
# pins become pip constraints, one at a time dropped if they conflict): an older release of a server is then
# recorded on the very dependencies of the pinned one, so what drift finds between them is the server's own change.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: scripts/lock-python-peer.sh PYTHON_VERSION OUT.lock \"what it is\" REQUIREMENT..." >&2
  exit 2
fi
version=$1 out=$2 what=$3
shift 3
root=$(pyenv root 2>/dev/null || true)
python=""
for candidate in "$root"/versions/"$version"*/bin/python3; do [ -x "$candidate" ] && python=$candidate && break; done
[ -n "$python" ] || python=$(command -v "python$version") || { echo "lock-python-peer: no Python $version (pyenv install $version)" >&2; exit 2; }
work=$(mktemp -d)
# The constraints and pip's output sit beside the download folder (everything in it becomes the lock): both go too.
trap 'rm -rf "$work" "$work.constraints" "$work.err" "$work.c2" "$out.tmp"' EXIT
# Not --quiet: a resolution conflict is only explained ("The user requested (constraint) ...") without it.
download() {
  "$python" -m pip download --disable-pip-version-check --only-binary=:all: -d "$work" "$@"
}
if [ -n "${LIKE:-}" ]; then
  # The other lock's pins, but for the packages asked for by name here (their own release is the point).
  asked=$(printf '%s\n' "$@" | sed 's/[=<>!~\[].*//' | tr '[:upper:]_.' '[:lower:]--')
  grep -E '^[A-Za-z0-9._-]+==' "$LIKE" | sed 's/ .*//' | while read -r pin; do
    name=$(echo "${pin%%==*}" | tr '[:upper:]_.' '[:lower:]--')
    # Written normalised, as pip names a conflicting constraint.
    echo "$asked" | grep -qx "$name" || echo "$name==${pin#*==}"
  done > "$work.constraints"
  # A pin the older release cannot take (it asks for another version) is dropped, and named.
  # pip explains a conflict on stdout: both go to the file read here.
  until download -c "$work.constraints" "$@" > "$work.err" 2>&1; do
    # pip names it: "The user requested (constraint) rich==15.0.0".
    conflict=$(grep -oE "\(constraint\) [A-Za-z0-9._-]+==[^ ,)]+" "$work.err" | sed 's/^(constraint) //' | head -1 || true)
    if [ -z "$conflict" ]; then grep -v "^WARNING: Location" "$work.err" >&2; exit 1; fi
    echo "lock-python-peer: $conflict cannot hold for $*; left to pip" >&2
    grep -qxF "$conflict" "$work.constraints" || { echo "lock-python-peer: pip names $conflict, which no pin here says" >&2; exit 1; }
    grep -vxF "$conflict" "$work.constraints" > "$work.c2" || true
    mv "$work.c2" "$work.constraints"
    rm -f "$work"/*
  done
else
  download "$@" > /dev/null 2> >(grep -v "^WARNING: Location" >&2)
fi
{
  echo "# $what, with every dependency, pinned with hashes (scripts/lock-python-peer.sh, $(date -u +%Y-%m-%d))."
  echo "# Python $version, linux $(uname -m). Installed by npm run test:peers (scripts/install-python-peers.sh), never by npm ci."
  for file in "$work"/*; do
    base=$(basename "$file")
    # A wheel is NAME-VERSION-...whl; names are written normalised (PEP 503), as pip compares them.
    name=$(echo "$base" | cut -d- -f1 | tr '[:upper:]_.' '[:lower:]--')
    ver=$(echo "$base" | cut -d- -f2)
    echo "$name==$ver \\"
    echo "    --hash=sha256:$(sha256sum "$file" | cut -c1-64)"
  done | paste - - | sort | tr '\t' '\n'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "lock-python-peer: $out: $(grep -c '==' "$out") packages"
