#!/usr/bin/env bash
# Installs PostgreSQL 15 and builds the pgvector extension for it, so that the
# Postgres storage's tests run with pgvector as well as without. Debian's
# bookworm has no pgvector package for PostgreSQL 15, so this builds Debian's
# own source package (from trixie) against postgresql-server-dev-15. The
# system's apt sources stay untouched: the source package is fetched with a
# private apt configuration in a temporary folder. Does nothing when the
# extension is installed already; run as root.
set -euo pipefail

PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
EXTENSIONS=/usr/share/postgresql/15/extension

if [ -f "$EXTENSIONS/vector.control" ] && [ -x /usr/lib/postgresql/15/bin/initdb ]; then
  exit 0
fi

if [ ! -x "$PG_CONFIG" ] || [ ! -d /usr/include/postgresql/15/server ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    postgresql-15 postgresql-server-dev-15 make dpkg-dev >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
cat >"$work/parts/trixie-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_private=(
  -o Dir::Etc::SourceList=/dev/null
  -o "Dir::Etc::SourceParts=$work/parts"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache"
  -o APT::Sandbox::User=root
)
apt-get "${apt_private[@]}" update -qq
(cd "$work" && apt-get "${apt_private[@]}" source --download-only -qq pgvector)
# apt checked the files' hashes against the signed index; the .dsc's own signature
# cannot be checked without Debian's developer keyring.
(cd "$work" && dpkg-source --no-check -x pgvector_*.dsc pgvector >/dev/null)
# OPTFLAGS="" leaves out -march=native, so the build runs on any x86-64.
make -s -C "$work/pgvector" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
make -s -C "$work/pgvector" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install >/dev/null
test -f "$EXTENSIONS/vector.control"
