#!/usr/bin/env bash
# symbols.sh -- libkumi.so exports exactly what runtime/libkumi.map says:
# every function of include/kumi.h in the public node KUMI_0.1, the
# internal interface (KUMI_INTERNAL_0.1) of the bindings, the translator's
# code and transport plugins, and nothing else.
# usage: symbols.sh LIBKUMI_SO SOURCE_DIR
set -euo pipefail
lib=$1 src=$2
map=$src/runtime/libkumi.map
hdr=$src/include/kumi.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# the map's names by node (comments stripped; "local: *;" ends a node's list)
sed -e ':a' -e 's|/\*.*\*/||g' -e '/\/\*/{N;ba' -e '}' "$map" |
  awk '/^[A-Z_0-9.]+[ \t]*\{/ { node = $1; next }
       /^[ \t]*local:/ { node = "" }
       node != "" && /^[ \t]*[A-Za-z_][A-Za-z_0-9]*;[ \t]*$/ { gsub(/[ \t;]/, ""); print node, $0 }' \
  > "$tmp/map"
awk '$1 == "KUMI_0.1" { print $2 }' "$tmp/map" | sort > "$tmp/map.public"
awk '$1 == "KUMI_INTERNAL_0.1" { print $2 }' "$tmp/map" | sort > "$tmp/map.internal"
[ -s "$tmp/map.public" ] && [ -s "$tmp/map.internal" ] ||
  { echo "FAIL: $map: no KUMI_0.1 or KUMI_INTERNAL_0.1 names read"; exit 1; }
dups=$(cut -d' ' -f2 "$tmp/map" | sort | uniq -d)
[ -z "$dups" ] || { echo "FAIL: $map lists these more than once: $dups"; fail=1; }

# kumi.h's functions: the names called in the preprocessed header (comments
# and macros gone; a function-pointer typedef's name is never followed by "(")
cc -E -P -x c "$hdr" | grep -oE '\bkumi_[a-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*(//' |
  sort -u > "$tmp/header"
[ -s "$tmp/header" ] || { echo "FAIL: no functions read from $hdr"; exit 1; }

# what libkumi.so exports, NAME VERSION ("kumi_init@@KUMI_0.1"; the version
# definitions themselves are absolute symbols named like the nodes)
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@@*/ /' | sort > "$tmp/exports"
[ -s "$tmp/exports" ] || { echo "FAIL: nm -D read no symbols from $lib"; exit 1; }

while read -r name ver; do
  if grep -qx "$name" "$tmp/map.public"; then want=KUMI_0.1
  elif grep -qx "$name" "$tmp/map.internal"; then want=KUMI_INTERNAL_0.1
  else
    echo "FAIL: $lib exports $name, which is in neither node of runtime/libkumi.map"
    fail=1; continue
  fi
  [ "$ver" = "$want" ] || { echo "FAIL: $name has version '${ver:-none}', not $want"; fail=1; }
done < "$tmp/exports"
cut -d' ' -f1 "$tmp/exports" > "$tmp/exported"
for name in $(comm -23 "$tmp/header" "$tmp/map.public"); do
  echo "FAIL: kumi.h declares $name, not in KUMI_0.1 of runtime/libkumi.map"; fail=1
done
for name in $(comm -23 "$tmp/header" "$tmp/exported"); do
  echo "FAIL: kumi.h declares $name, which $lib does not export"; fail=1
done
for name in $(comm -23 "$tmp/map.public" "$tmp/header"); do
  echo "FAIL: KUMI_0.1 lists $name, which kumi.h does not declare (internal?)"; fail=1
done
for name in $(sort "$tmp/map.public" "$tmp/map.internal" | comm -23 - "$tmp/exported"); do
  echo "FAIL: runtime/libkumi.map lists $name, which $lib does not export"; fail=1
done
[ $fail -eq 0 ] || exit 1
echo "symbols: $(wc -l < "$tmp/exported") exported: $(wc -l < "$tmp/map.public") public (kumi.h)," \
     "$(wc -l < "$tmp/map.internal") internal"
