#!/usr/bin/env bash
# docs/ stands on its own and nothing in the tree points outside it.
# usage: check_refs.sh SOURCE_DIR
#   1. no file of the source tree (but .git and build directories) refers
#      to material users never get: a path into the project's private
#      design notes or seed papers (the patterns are built below so that
#      this script does not match itself);
#   2. every relative link of docs/*.md names a file or directory that
#      exists;
#   3. docs/*.md and the man pages cite no issue numbers (the tracker is
#      not shipped);
#   4. docs/api.md names every public function, type and constant of
#      include/kumi.h.
# Exit 0 when all hold, 1 otherwise.
set -uo pipefail
src=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

w=work s=shared
outside="/$w/$s|\.\./$s/|$s/design|$s/seeds|design/(overview|api|style)\.md"
hits=$(grep -rIEn --exclude-dir=.git --exclude-dir='build*' --exclude-dir=bld \
         -e "$outside" "$src" 2>/dev/null)
[ -z "$hits" ] || fail "references outside the project:"$'\n'"$hits"

[ -f "$src/docs/README.md" ] || fail "no docs/README.md"
for md in "$src"/docs/*.md; do
  dir=$(dirname "$md")
  # [text](target) links, not URLs or in-page anchors
  while IFS= read -r target; do
    path=${target%%#*}
    [ -n "$path" ] || continue
    [ -e "$dir/$path" ] || fail "$(basename "$md"): link to $target: no $dir/$path"
  done < <(grep -oE '\]\([^)]+\)' "$md" | sed -E 's/^\]\(//; s/\)$//; s/ .*//' |
           grep -vE '^(https?|mailto):|^#')
done
for doc in "$src"/docs/*.md "$src"/docs/man/*.1; do
  issues=$(grep -nEi 'issue[s]? #?[0-9]+|\(#[0-9]+\)' "$doc")
  [ -z "$issues" ] || fail "$(basename "$doc") cites issue numbers:"$'\n'"$issues"
done

# 4. docs/api.md names every public function, type and constant of kumi.h
if [ -f "$src/include/kumi.h" ] && [ -f "$src/docs/api.md" ]; then
  for name in $(grep -v '^ \*\|^/\*' "$src/include/kumi.h" |
                grep -oE '\b(kumi_[a-z0-9_]+|KUMI_[A-Z0-9_]+)\b' | sort -u); do
    [ "$name" = KUMI_H ] && continue
    grep -q "\b$name\b" "$src/docs/api.md" || fail "docs/api.md does not mention $name (include/kumi.h)"
  done
fi

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "docs/ links resolve; no references outside the project; no issue numbers; api.md covers kumi.h"
