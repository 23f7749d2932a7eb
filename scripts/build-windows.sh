#!/usr/bin/env bash
# make windows: qrdesk for Windows 10/11 (x64), built on Linux.
#
#   dist/windows/qrdesk.exe         the desk app as a console program (commands in a prompt)
#   dist/windows/qrdeskw.exe        the Start menu's launcher: runs qrdesk.exe without a console (cmd/qrdeskw)
#   dist/windows/qrdesk-server.exe  the server (pure Go)
#   dist/qrdesk-VERSION-x64.msi     all three, installed by msiexec (deploy/windows/qrdesk.wxs),
#                                   with Program Files\qrdesk on the system PATH
#
# Each .exe carries the icon and version information (deploy/windows/qrdesk.rc.in,
# compiled by mingw's windres into a .syso the Go linker links in).
# The window needs cgo (Fyne's OpenGL driver), built by scripts/windows-build.sh: about 2
# minutes cold, seconds warm. QRDESK_WINDOWS_NOGUI=1 builds the command line
# only (-tags qrdesk_nogui, no cgo, seconds), which is what the installer
# test under wine uses (internal/winetest).
#
# Usage: build-windows.sh [VERSION [RELEASE]]
#   VERSION  the MSI's and the programs' file version, X.Y.Z (default
#            FyneApp.toml's; make windows gives scripts/version.sh msi)
#   RELEASE  what 'qrdesk version' prints and the MSI's file is named by
#            (default VERSION; make windows gives the .deb's version)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
version=${1:-$(sed -n 's/^Version = "\(.*\)"/\1/p' FyneApp.toml)}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "build-windows.sh: version $version is not X.Y.Z (an MSI needs three numbers)" >&2
  exit 2
fi
release=${2:-$version}
bin=${DIST:-dist}/windows
msi=${DIST:-dist}/qrdesk-$release-x64.msi
mkdir -p "$bin"
work=$(mktemp -d)
sysos=()
cleanup() { rm -rf "$work"; rm -f "${sysos[@]}"; }
trap cleanup EXIT

convert assets/icon.png -define icon:auto-resize=256,64,48,32,16 "$work/qrdesk.ico"

# resource NAME DESCRIPTION PACKAGE-DIR: the .syso for one program.
resource() {
  local name=$1 desc=$2 dir=$3
  sed -e "s|@NAME@|$name|g" -e "s|@DESCRIPTION@|$desc|g" -e "s|@VERSION@|$version.0|g" \
      -e "s|@VERSION_COMMAS@|${version//./,},0|g" -e "s|@ICON@|$work/qrdesk.ico|g" \
      deploy/windows/qrdesk.rc.in > "$work/$name.rc"
  x86_64-w64-mingw32-windres -O coff -i "$work/$name.rc" -o "$dir/zz_qrdesk_windows_amd64.syso"
  sysos+=("$dir/zz_qrdesk_windows_amd64.syso")
}

export GOOS=windows GOARCH=amd64
# The release and commit 'qrdesk version' and 'qrdesk-server --version'
# print (internal/buildinfo), as the Makefile links them in.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit=$commit-dirty
ldflags="-s -w -X qrdesk/internal/buildinfo.release=$release -X qrdesk/internal/buildinfo.commit=$commit"
resource qrdesk "qrdesk: one-time QR labels" .
if [ "${QRDESK_WINDOWS_NOGUI:-}" = 1 ]; then
  CGO_ENABLED=0 $GO build -trimpath -tags qrdesk_nogui -ldflags "$ldflags" -o "$bin/qrdesk.exe" .
else
  LDFLAGS="$ldflags" bash scripts/windows-build.sh -o "$bin/qrdesk.exe" .
fi
# The Start menu's launcher (cmd/qrdeskw): a window program (no console)
# that runs qrdesk.exe beside it without a console; what qrdesk.exe cannot
# do goes to qrdesk.log and a dialog, never to a console.
resource qrdeskw "qrdesk: one-time QR labels" cmd/qrdeskw
CGO_ENABLED=0 $GO build -trimpath -ldflags "$ldflags -H windowsgui" -o "$bin/qrdeskw.exe" ./cmd/qrdeskw
resource qrdesk-server "qrdesk-server: the qrdesk central server" cmd/qrdesk-server
CGO_ENABLED=0 $GO build -trimpath -ldflags "$ldflags" -o "$bin/qrdesk-server.exe" ./cmd/qrdesk-server

# wixl takes source paths relative to the current folder only.
rel() { realpath --relative-to=. "$1"; }
wixl -a x64 -D Version="$version" -D BinDir="$(rel "$bin")" -D IconFile="$(rel "$work/qrdesk.ico")" \
  -o "$msi" deploy/windows/qrdesk.wxs

# qrdesk on PATH (C:\> qrdesk ... in any new command prompt): the Environment
# table, which wixl cannot build from <Environment>, added with msitools'
# msibuild. "=-*PATH" is the system variable PATH, set on install and taken
# out on uninstall; "[~];" appends the folder to what is there. Windows
# Installer's own WriteEnvironmentStrings and RemoveEnvironmentStrings do
# the work (and announce the change to running programs), at the places in
# the sequence WiX gives them.
printf 'Environment\tName\tValue\tComponent_\ns72\tl255\tL255\ts72\nEnvironment\tEnvironment\nPathQrdesk\t=-*PATH\t[~];[INSTALLDIR]\tQrdeskExe\n' >"$work/Environment.idt"
msibuild "$msi" -i "$work/Environment.idt" \
  -q "INSERT INTO \`InstallExecuteSequence\` (\`Action\`, \`Sequence\`) VALUES ('RemoveEnvironmentStrings', 3300)" \
  -q "INSERT INTO \`InstallExecuteSequence\` (\`Action\`, \`Sequence\`) VALUES ('WriteEnvironmentStrings', 5200)"
ls -l "$bin"/*.exe "$msi"
