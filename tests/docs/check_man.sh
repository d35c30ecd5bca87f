#!/usr/bin/env bash
# The man pages of docs/man against the tools' own --help.
# usage: check_man.sh MANDIR BINDIR [TOOL...]
#
# For each tool (default: every one below whose program is in BINDIR):
#   1. every option its help text lists (a word starting with - or --;
#      --opt[:a|:b] counts as --opt, --opt:a, --opt:b) appears in its man
#      page; every option the help defines (in [...] of its usage lines,
#      or leading an indented line of an option list) is documented in
#      the page's OPTIONS section (the tags of its .TP items); and every
#      option the page documents there is in the help text;
#   2. kumirun's page names every variable `kumirun --help-env` prints;
#   3. the page renders without a warning: groff -man -Tutf8 -ww when
#      groff is installed, else man --warnings -l, else a plain check of
#      the page's structure (.TH first, NAME, SYNOPSIS, DESCRIPTION, known
#      requests only).
# Exit 0 when every check holds, 1 otherwise (each failure on its own line).
set -uo pipefail
mandir=$1 bindir=$2
shift 2

# tool | page | the command that prints its help (run in BINDIR's PATH)
# oshcc's and mpicc's --help is the compiler's: their own is --showme:help.
# mpirun's --help is its own usage followed by kumirun's.
specs=(
  "kumirun|kumirun.1|kumirun --help"
  "kumicc|kumicc.1|kumicc --help"
  "kumi-bench|kumi-bench.1|kumi-bench --help"
  "kumi-compare|kumi-compare.1|kumi-compare --help"
  "oshcc|oshcc.1|oshcc --showme:help"
  "oshc++|oshcc.1|oshc++ --showme:help"
  "oshrun|oshrun.1|oshrun --help"
  "mpicc|mpicc.1|mpicc --showme:help"
  "mpicxx|mpicc.1|mpicxx --showme:help"
  "mpic++|mpicc.1|mpic++ --showme:help"
  "mpirun|mpirun.1|mpirun --help"
  "mpiexec|mpirun.1|mpiexec --help"
  "kumi-translate|kumi-translate.1|kumi-translate --help"
  "kumi-kernels|kumi-kernels.1|kumi-kernels --help"
  "kumi-bench-mpi|kumi-bench-mpi.1|kumi-bench-mpi --help"
  "kumi-bench-shmem|kumi-bench-mpi.1|kumi-bench-shmem --help"
)

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# option words of the text on stdin, one a line, sorted, unique
options_of() {
  perl -ne '
    s/(--?[A-Za-z][\w-]*)\[((?::\w+\|?)+)\]/join(" ", $1, map { "$1$_" } grep { length } split(m{\|}, $2))/ge;
    while (/(?<![\w\/.=\-])(--?[A-Za-z][A-Za-z0-9_-]*(?::[a-z]+)?)/g) {
      my $o = $1; $o =~ s/-+$//; print "$o\n" if $o =~ /^--?[A-Za-z]/;
    }' | sort -u
}

# the options the help text defines, one a line: the words in [...] of its
# usage lines ("usage: ..." and the indented lines after it) and the
# leading words of indented lines that start with - or [ (an option list:
# "  -n, --npes N    number of PEs"), up to the first run of two spaces
defined_options_of() {
  perl -ne '
    s/(--?[A-Za-z][\w-]*)\[((?::\w+\|?)+)\]/join(" ", $1, map { "$1$_" } grep { length } split(m{\|}, $2))/ge;
    my @parts;
    if (/^\s*usage:/i) { $u = 1 } elsif (!($u && /^\s+\S/)) { $u = 0 }
    push @parts, /\[([^\]]*)\]/g if $u;
    push @parts, (split /\s{2,}/, $1)[0] if /^\s+([-\[].*)/;
    for (@parts) {
      while (/(?<![\w\/.=\-])(--?[A-Za-z][A-Za-z0-9_-]*(?::[a-z]+)?)/g) {
        my $o = $1; $o =~ s/-+$//; print "$o\n";
      }
    }' | sort -u
}

# a man page as plain text: escapes and font changes out, requests kept
# as words (.BR \-n ", " \-\-npes -> .BR -n ", " --npes)
man_text() {
  perl -pe 's/^\.\\".*//; s/\\f(\[[^]]*\]|\(..|.)//g; s/\\-/-/g; s/\\&//g; s/\\\(..//g; s/\\ / /g; s/"/ /g' "$1"
}

# the tags of the .TP items of the OPTIONS section
man_option_tags() {
  man_text "$1" | awk '
    /^\.SH/ { in_opt = ($0 ~ /^\.SH +OPTIONS/); next }
    in_opt && /^\.TP/ { tag = 1; next }
    in_opt && tag { print; tag = 0 }'
}

check_render() {
  local page=$1 out
  if command -v groff >/dev/null 2>&1; then
    out=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
  elif command -v man >/dev/null 2>&1; then
    out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  else
    out=$(awk '
      NR == 1 && !/^\.(TH|\\")/ { print "first line is not .TH or a comment" }
      /^\.TH/ { th = 1 }
      /^\.SH +NAME/ { n = 1 } /^\.SH +SYNOPSIS/ { s = 1 } /^\.SH +DESCRIPTION/ { d = 1 }
      /^\.[A-Za-z]/ { r = $1; sub(/^\./, "", r)
        if (r !~ /^(TH|SH|SS|PP|P|LP|TP|IP|HP|RS|RE|B|I|R|BR|BI|IB|RB|IR|RI|SM|SB|nf|fi|br|sp|nh|hy|ad|na|in|ti|ft|ds|so|EX|EE|UR|UE|MT|ME)$/)
          print "line " NR ": unknown request ." r }
      END { if (!th) print "no .TH"; if (!n) print "no NAME"; if (!s) print "no SYNOPSIS";
            if (!d) print "no DESCRIPTION" }' "$page")
  fi
  [ -z "$out" ] || fail "$(basename "$page") does not render cleanly:"$'\n'"$out"
}

want=("$@")
declare -A rendered=()
checked=0
for spec in "${specs[@]}"; do
  IFS='|' read -r tool page cmd <<<"$spec"
  if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $tool "* ]]; then
    continue
  fi
  if [ ! -x "$bindir/$tool" ]; then
    # kumi-translate is not built with -DKUMI_TRANSLATOR=OFF, the peers without
    # their libraries; the others always are
    case "$tool" in
      kumi-translate|kumi-bench-mpi|kumi-bench-shmem) echo "skip: $tool (not built)"; continue ;;
      *) fail "$tool: no $bindir/$tool"; continue ;;
    esac
  fi
  if [ ! -f "$mandir/$page" ]; then
    fail "$tool: no man page $mandir/$page"
    continue
  fi
  # a wide terminal: argparse wraps --help at COLUMNS and may break words at hyphens
  help=$(cd "$bindir" && PATH="$bindir:$PATH" COLUMNS=400 KUMI_LOG=error $cmd 2>&1)
  if [ -z "$help" ]; then
    fail "$tool: '$cmd' printed nothing"
    continue
  fi
  help_opts=$(options_of <<<"$help")
  page_opts=$(man_text "$mandir/$page" | options_of)
  tag_opts=$(man_option_tags "$mandir/$page" | options_of)
  [ -n "$tag_opts" ] || fail "$page: no options in its OPTIONS section"
  defined_opts=$(defined_options_of <<<"$help")
  missing=$(comm -23 <(echo "$help_opts") <(echo "$page_opts"))
  undocumented=$(comm -23 <(echo "$defined_opts") <(echo "$tag_opts"))
  extra=$(comm -13 <(echo "$help_opts") <(echo "$tag_opts"))
  [ -z "$missing" ] || fail "$tool: '$cmd' lists options $page does not mention: $(echo $missing)"
  [ -z "$undocumented" ] || fail "$tool: options '$cmd' defines that the OPTIONS of $page do not document: $(echo $undocumented)"
  [ -z "$extra" ] || fail "$tool: $page documents options '$cmd' does not list: $(echo $extra)"
  if [ "$tool" = kumirun ]; then
    vars=$("$bindir/kumirun" --help-env | grep -o '^  KUMI_[A-Z0-9_]*' | sort -u)
    for v in $vars; do
      grep -q "^\.B $v\$" "$mandir/$page" || fail "kumirun.1: ENVIRONMENT does not list $v (kumirun --help-env)"
    done
  fi
  if [ -z "${rendered[$page]:-}" ]; then
    check_render "$mandir/$page"
    rendered[$page]=1
  fi
  checked=$((checked + 1))
  echo "ok: $tool ($page): $(echo $help_opts | wc -w) options in --help"
done

[ "$checked" -gt 0 ] || fail "no tool checked"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all man pages agree with --help"
