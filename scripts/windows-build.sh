#!/usr/bin/env bash
# go build for Windows x64 with cgo: the window (Fyne's OpenGL driver), as
# every build of it here makes it (make windows, make test's prebuild,
# internal/winetest), so that they share the Go cache.
#
# clang compiles the C for the mingw-w64 target and mingw-w64's gcc links.
# mingw-w64's gcc 12 took 5.5 minutes of one core for cgo's probe of
# go-gl/gl alone (5,706 C names reported undeclared on purpose, and gcc looks
# for a spelling suggestion among every name in scope for each), clang 3 s;
# Go's linker passes flags only GNU ld takes, hence gcc for the link.
#
# Usage: windows-build.sh [go build flags] PACKAGE   (LDFLAGS: more -ldflags)
set -euo pipefail
export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC="clang --target=x86_64-w64-mingw32"
exec "${GO:-go}" build -trimpath -ldflags "-extld=x86_64-w64-mingw32-gcc ${LDFLAGS:-}" "$@"
