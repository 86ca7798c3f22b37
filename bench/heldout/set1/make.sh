#!/usr/bin/env bash
# Fetches the documents of held-out set 1 into docs/ (see ../README.md) from Debian's and npm's
# registries. Run it again to fetch them again; it overwrites docs/ and LICENSES.md only.
#
# Needs: apt-get and dpkg-deb (Debian 12), groff 1.22 (`apt-get install groff`), npm,
# pandoc 2.17 (`apt-get install pandoc`), python3.
cd "$(dirname "$0")"
. ../_fetch.sh

# "R Data Import/Export" (R 4.2.2), as Debian ships it.
deb r-doc-pdf=4.2.2.20221110-2
cp "$work/deb/usr/share/R/doc/manual/R-data.pdf" docs/R-data.pdf

# The manual page of find (findutils 4.9.0), rendered to PDF by groff.
deb findutils=4.9.0-4
man_pdf find.1.gz find.pdf

# Three READMEs: dotenv as DOCX, uuid as PPTX, ws as Markdown.
readme dotenv@18.0.10 README.md
readme uuid@14.0.3 README.md
readme ws@8.23.0 README.md
docx dotenv dotenv.docx
pptx uuid uuid.pptx
cp "$work/ws.md" docs/ws.md
