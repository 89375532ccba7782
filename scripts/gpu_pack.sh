#!/usr/bin/env bash
# Packs binaries built here (Debian) with their non-glibc shared libraries into .gpu/ so the
# GPU machine (no Debian dev packages, no network) can run them: carry .gpu with the device tool.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KFORGE_BUILD_DIR:-build-main}
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
for binary in kforge kforge-worker; do cp "$build/bin/$binary" .gpu/bin/; done
for test in "$build"/test_*; do [ -x "$test" ] && cp "$test" .gpu/bin/; done
strip .gpu/bin/*
ldd .gpu/bin/* 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" .gpu/lib/; done
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
du -sh .gpu
