# Functions sourced by each held-out set's make.sh: fetch a document from Debian's or npm's
# registry, render a manual page, convert a README with pandoc.
# shellcheck shell=bash
set -euo pipefail
export SOURCE_DATE_EPOCH=1700000000 TZ=UTC LC_ALL=C.UTF-8

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p docs
echo "# The licences of the documents taken from npm packages" >LICENSES.md
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/fixtures/_restamp.sh"

# deb package=version: unpacks a Debian package into $work/deb.
deb() {
  (cd "$work" && apt-get download "$1" >/dev/null 2>&1)
  dpkg-deb -x "$work/${1%%=*}"_*.deb "$work/deb"
}

# man_pdf page.section.gz out.pdf: renders a manual page of an unpacked package with groff.
man_pdf() {
  zcat "$work/deb/usr/share/man/man${1: -4:1}/$1" | groff -man -Tpdf -Wbreak >"docs/$2"
}

# readme package@version file-in-package: the package's README as $work/<package>.md, images and
# HTML tags left out (pandoc would fetch the images), and its licence appended to LICENSES.md.
readme() {
  (cd "$work" && npm pack --silent "$1" >/dev/null)
  local tarball licence
  tarball="$work/$(echo "${1%@*}" | tr -d @ | tr / -)-${1##*@}.tgz"
  tar -tzf "$tarball" >"$work/files"
  licence="$(grep -m1 -E '^package/LICEN[CS]E' "$work/files")"
  tar -xzf "$tarball" -C "$work" "package/$2" "$licence"
  python3 - "$work/package/$2" "$work/${1%@*}.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
text = re.sub(r"<[^>\n]+>", "", text)
open(sys.argv[2], "w").write(text)
PY
  printf '\n## %s\n\n```text\n%s\n```\n' "$1" "$(cat "$work/$licence")" >>LICENSES.md
  rm -rf "$work/package"
}

# docx name out.docx, pptx name out.pptx: a README (see readme) converted by pandoc, with fixed
# entry dates.
docx() {
  pandoc -f gfm "$work/$1.md" -o "$work/$2"
  restamp "$work/$2" "docs/$2"
}
pptx() {
  pandoc -f gfm --slide-level=3 "$work/$1.md" -o "$work/$2"
  restamp "$work/$2" "docs/$2"
}
