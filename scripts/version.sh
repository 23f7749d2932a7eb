#!/usr/bin/env bash
# version.sh deb|msi: the version of the packages built from the commit
# checked out, increasing with the commit's time (UTC) so that every newer
# build installs over an older one without a "downgrade":
#
#   deb  RELEASE+gitYYYYMMDD.HHMMSS.HASH   0.1.0+git20261204.180112.4ad8210
#        (dpkg orders the date, then the time of day, as numbers; the hash
#        only names the commit)
#   msi  A.B.C for Windows Installer, whose ProductVersion allows
#        A ≤ 255, B ≤ 255, C ≤ 65535 and compares only these three:
#        A = RELEASE's major × 16 + its minor (each 0–15),
#        B.C = the minutes from 2026-01-01 00:00 UTC to the commit, as
#        B × 65536 + C (B = minutes / 65536, C = minutes % 65536),
#        which lasts until 2057-11; two builds a minute apart order.
#
# RELEASE is FyneApp.toml's Version. Outside a git checkout: RELEASE as it
# is (both). QRDESK_SRC names another checkout (the tests').
set -euo pipefail
src=${QRDESK_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
kind=${1:-}
release=$(sed -n 's/^Version = "\(.*\)"/\1/p' "$src/FyneApp.toml")
if ! [[ $release =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "version.sh: FyneApp.toml's Version $release is not X.Y.Z" >&2
  exit 2
fi
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
if ! at=$(git -C "$src" log -1 --format=%ct 2>/dev/null) || [ -z "$at" ]; then
  echo "$release"
  exit 0
fi
case $kind in
deb)
  echo "$release+git$(TZ=UTC date -d "@$at" +%Y%m%d.%H%M%S).$(git -C "$src" log -1 --format=%h)"
  ;;
msi)
  if ((major > 15 || minor > 15)); then
    echo "version.sh: release $release: the MSI version holds a major and a minor of 0 to 15 each (scripts/version.sh says how it is made)" >&2
    exit 2
  fi
  minutes=$(((at - 1767225600) / 60)) # 2026-01-01T00:00:00Z
  if ((minutes < 0 || minutes >= 256 * 65536)); then
    echo "version.sh: the commit's time $(TZ=UTC date -d "@$at" +%FT%TZ) is outside 2026-01-01 … 2057-11: the MSI version's mapping needs a new origin" >&2
    exit 2
  fi
  echo "$((major * 16 + minor)).$((minutes / 65536)).$((minutes % 65536))"
  ;;
*)
  echo "usage: version.sh deb|msi" >&2
  exit 2
  ;;
esac
