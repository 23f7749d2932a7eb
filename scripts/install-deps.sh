#!/usr/bin/env bash
# Installs what building and testing qrdesk needs on Debian/Ubuntu. Idempotent:
# a package already present is not installed again, and apt-get update runs only
# when something is missing.
set -euo pipefail

# Usage: install-deps.sh [build|test]   (default test: everything)
packages=(
  # cgo toolchain (clang compiles, the Makefile says why; gcc links) and the
  # X11/OpenGL headers Fyne's GLFW driver builds against
  clang gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
  libxinerama-dev libxi-dev libxxf86vm-dev libxext-dev libasound2-dev
)
if [ "${1:-test}" = "test" ]; then
  packages+=(
    # a real window under Xvfb typed by a "scanner", PDFs rasterised and decoded
    xvfb xdotool poppler-utils zbar-tools imagemagick
    # the sqlite3 CLI for the bulk-insert comparison benchmark
    sqlite3
    # a throwaway PostgreSQL cluster for the server's tests (started by the tests)
    postgresql
    # the package tests: the desktop entry checked, the server's unit verified
    desktop-file-utils systemd
    # promtool, for the shipped alert rules' unit tests (server/TestAlertRules)
    prometheus
    # headless Chromium for the web dashboard's browser test, and a CJK font
    # so its Chinese pages (and screenshots) show characters, not boxes
    chromium fonts-wqy-zenhei
    # the Windows checks (make test-windows): wine runs the cross-built
    # test binaries and qrdesk.exe; mingw builds the test-only ProcessPrng
    # shim wine 8.0 lacks (internal/winetest/shim)
    wine64 gcc-mingw-w64-x86-64
    # the MSI (make windows, and its test under wine): wixl builds it,
    # msitools' msibuild adds the PATH entry wixl cannot (<Environment>)
    wixl msitools
    # a private CUPS server the Windows print test starts (wine hands
    # spooler jobs to CUPS), and ghostscript to render the spooled page
    cups-daemon cups-client ghostscript
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
