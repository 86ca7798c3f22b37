#!/usr/bin/env bash
# Fetches the documents of held-out set 2 into docs/ (see ../README.md) from Debian's and npm's
# registries. Run it again to fetch them again; it overwrites docs/ and LICENSES.md only.
#
# Needs: apt-get and dpkg-deb (Debian 12), groff 1.22 (`apt-get install groff`), npm,
# pandoc 2.17 (`apt-get install pandoc`), python3.
cd "$(dirname "$0")"
. ../_fetch.sh

# The manual page of ssh_config (OpenSSH 9.2p1), rendered to PDF by groff.
deb openssh-client=1:9.2p1-2+deb12u10
man_pdf ssh_config.5.gz ssh_config.pdf

# "Portable Document Format Publishing with GNU Troff" (groff 1.22.4), as Debian ships it.
deb groff=1.22.4-10
zcat "$work/deb/usr/share/doc/groff-base/pdf/pdfmark.pdf.gz" >docs/pdfmark.pdf

# Three READMEs: jsonwebtoken as DOCX, lru-cache as PPTX, node-fetch as Markdown.
readme jsonwebtoken@9.0.3 README.md
readme lru-cache@11.5.3 README.md
readme node-fetch@3.3.2 README.md
docx jsonwebtoken jsonwebtoken.docx
pptx lru-cache lru-cache.pptx
cp "$work/node-fetch.md" docs/node-fetch.md
