#!/usr/bin/env bash
# The fuzz corpora live in one archive (corpus.tar.gz) so the repository's file listing is
# the project, not 16 k generated inputs.
#   ./corpus.sh unpack   # corpus.tar.gz -> corpus/   (before a fuzz run)
#   ./corpus.sh pack     # corpus/ -> corpus.tar.gz   (after a run grew it; commit the archive)
# The archive is reproducible: sorted names, fixed owner and time, gzip without a name.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  unpack) tar -xzf corpus.tar.gz ;;
  pack)
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01' -cf - corpus \
      | gzip -9n > corpus.tar.gz.new
    mv corpus.tar.gz.new corpus.tar.gz ;;
  *) echo "usage: $0 unpack|pack" >&2; exit 2 ;;
esac
