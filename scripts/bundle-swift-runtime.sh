#!/usr/bin/env bash
# Makes an installable copy of a Swift executable that needs no Swift toolchain on the target:
#   scripts/bundle-swift-runtime.sh SOURCE DEST LIBDIR RUNPATH
# copies SOURCE to DEST (stripped, mode 755). When SOURCE links the toolchain's
# Swift runtime (the libraries `ldd` resolves through a RUNPATH entry that is not $ORIGIN: a
# build without --static-swift-stdlib, e.g. the debug build CI packages), each of those
# libraries is copied (stripped, mode 644) into LIBDIR and DEST's RUNPATH becomes RUNPATH
# (e.g. '$ORIGIN/../lib/hybrid-security-key', so that it holds wherever the prefix is). A
# statically linked SOURCE (--static-swift-stdlib) gets no libraries and no RUNPATH at all.
# Prints the names of the libraries it copied, one per line (nothing for a static build).
# Needs patchelf (scripts/setup.sh installs it).
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 SOURCE DEST LIBDIR RUNPATH" >&2; exit 64; }
source=$1 dest=$2 libdir=$3 runpath=$4
die() { echo "bundle-swift-runtime.sh: $*" >&2; exit 1; }
command -v patchelf >/dev/null || die "patchelf missing (apt install patchelf)"
[ -x "$source" ] || die "$source is not an executable"

# The directories of SOURCE's own RUNPATH other than $ORIGIN: where the toolchain's runtime lives.
toolchain_dirs=()
IFS=: read -r -a entries <<<"$(patchelf --print-rpath "$source")"
for entry in "${entries[@]}"; do
    case "$entry" in '' | *'$ORIGIN'* | *'${ORIGIN}'*) ;; *) toolchain_dirs+=("$(readlink -f "$entry" 2>/dev/null || echo "$entry")") ;; esac
done
# `ldd` lines "NAME => PATH (ADDRESS)": the libraries it resolved inside those directories.
libraries=()
if [ ${#toolchain_dirs[@]} -gt 0 ]; then
    listing=$(ldd "$source") || die "ldd $source failed"
    grep -q 'not found' <<<"$listing" && die "$source has unresolved libraries: $(grep 'not found' <<<"$listing")"
    while read -r _ arrow path _; do
        [ "$arrow" = "=>" ] || continue
        dir=$(dirname "$(readlink -f "$path")")
        for toolchain_dir in "${toolchain_dirs[@]}"; do
            [ "$dir" = "$toolchain_dir" ] && libraries+=("$path")
        done
    done <<<"$listing"
fi

strip --strip-unneeded -o "$dest" "$source"
chmod 755 "$dest"
if [ ${#libraries[@]} -eq 0 ]; then
    patchelf --remove-rpath "$dest"
    exit 0
fi
mkdir -p "$libdir"
for library in "${libraries[@]}"; do
    name=$(basename "$library")
    strip --strip-unneeded -o "$libdir/$name" "$(readlink -f "$library")"
    chmod 644 "$libdir/$name"
    echo "$name"
done
patchelf --set-rpath "$runpath" "$dest"
