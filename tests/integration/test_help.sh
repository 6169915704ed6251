#!/bin/bash
# First contact (issue 21): help and version.
#  - `tlmpi --version`: the CMake project version, and the git commit when
#    the build comes from a checkout
#  - `tlmpi --help` names every subcommand and every option of the analysis
#    (src/cli/opts.c's table; test_progress checks the usage text itself)
#  - `tlmpi SUB --help` is SUB's own usage and names every option SUB's
#    source parses
#  - the man page (docs/tlmpi.1) names every option of every --help, and
#    carries the same version
#  - under mpirun, help, version, usage errors and subcommands print once
set -u
: "${TLMPI:?}" "${TLM_SOURCE_DIR:?}" "${MPIEXEC:=mpirun}"
export OMPI_MCA_odls_base_sigkill_timeout=0
W=${TLM_WORK_DIR:-$(mktemp -d)}/help
rm -rf "$W"; mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
S=$TLM_SOURCE_DIR
MAN=$S/docs/tlmpi.1

# ---- version
v=$("$TLMPI" --version) || fail "--version exit $?"
want=$(sed -n 's/^project(tlmpi VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
[ -n "$want" ] || fail "no version in CMakeLists.txt"
case "$v" in
    "tlmpi $want"|"tlmpi $want (git "*")") ;;
    *) fail "--version says '$v', want 'tlmpi $want [(git COMMIT)]'" ;;
esac
if git -C "$S" rev-parse --git-dir >/dev/null 2>&1; then
    head=$(git -C "$S" rev-parse --short=12 HEAD)
    case "$v" in *"(git $head"*) ;; *) fail "'$v' lacks commit $head" ;; esac
fi
[ "$("$TLMPI" -V)" = "$v" ] || fail "-V differs from --version"
# the analysis mode's --version (anywhere on its command line)
[ "$("$TLMPI" --trace_dir "$W" --version)" = "$v" ] \
    || fail "--version in the analysis options"
grep -q "^\.TH TLMPI 1 .*\"tlmpi $want\"" "$MAN" \
    || fail "the man page's .TH does not say tlmpi $want"

# ---- tlmpi --help: every subcommand, every analysis option
"$TLMPI" --help > "$W/help" || fail "--help exit $?"
[ ! -s "$W/err" ] || true
for sub in inspect report tree modules diff compare replay; do
    grep -q "^  $sub " "$W/help" || fail "--help does not list '$sub'"
done
opts=$(grep -o '{"[a-z_]*", K_' "$S/src/cli/opts.c" | cut -d'"' -f2)
[ "$(echo "$opts" | wc -l)" -ge 18 ] || fail "cannot read src/cli/opts.c's options"
for o in $opts; do
    grep -q -- "--$o\b" "$W/help" || fail "--help lacks --$o"
done
# no arguments: the same usage, on stderr, exit 2
"$TLMPI" > "$W/out" 2> "$W/err"; rc=$?
[ $rc -eq 2 ] || fail "no arguments: exit $rc, want 2"
cmp -s "$W/err" "$W/help" || fail "no arguments: usage differs from --help"

# ---- tlmpi SUB --help
for sub in inspect report tree modules diff compare replay; do
    "$TLMPI" $sub --help > "$W/h_$sub" || fail "$sub --help exit $?"
    head -n 1 "$W/h_$sub" | grep -q "^usage: tlmpi $sub " \
        || fail "$sub --help starts '$(head -n 1 "$W/h_$sub")'"
    grep -v "^usage: tlmpi $sub " "$W/h_$sub" | grep -q "^usage:" \
        && fail "$sub --help shows another command's usage"
done
# every "--option" literal a subcommand's source parses is in its help
# (tree and modules share cmd_tree.c: the modules part is after its entry)
src_opts() { grep -o '"--[a-z_]*"' | tr -d '"' | grep -vx -- '--help' | sort -u; }
for sub in inspect report diff compare replay; do
    for o in $(src_opts < "$S/src/cmd/cmd_$sub.c"); do
        grep -q -- "$o\b" "$W/h_$sub" || fail "tlmpi $sub --help lacks $o"
    done
done
# the report options (report_opts.c) are both report's and compare's
for o in $(src_opts < "$S/src/cmd/report_opts.c"); do
    for sub in report compare; do
        grep -q -- "$o\b" "$W/h_$sub" || fail "tlmpi $sub --help lacks $o"
    done
done
# TraceLens's command line (report_tl.c) is report's
for o in $(src_opts < "$S/src/cmd/report_tl.c") --enable-origami; do
    grep -q -- "$o\b" "$W/h_report" || fail "tlmpi report --help lacks $o"
done
for o in $(sed '/^int tlm_cmd_modules/,$d' "$S/src/cmd/cmd_tree.c" | src_opts); do
    grep -q -- "$o\b" "$W/h_tree" || fail "tlmpi tree --help lacks $o"
done
for o in $(sed -n '/^int tlm_cmd_modules/,$p' "$S/src/cmd/cmd_tree.c" | src_opts); do
    grep -q -- "$o\b" "$W/h_modules" || fail "tlmpi modules --help lacks $o"
done

# ---- tlmpi audit --help: every option of audit_opts.c, and the analysis
# options it shares
"$TLMPI" audit --help > "$W/h_audit" || fail "audit --help exit $?"
head -n 1 "$W/h_audit" | grep -q "^usage: mpirun -n N tlmpi audit ROOT" \
    || fail "audit --help starts '$(head -n 1 "$W/h_audit")'"
grep -q "tlmpi audit ROOT" "$W/help" || fail "--help does not show tlmpi audit"
for o in $(grep -o '{"[a-z_]*", A_' "$S/src/audit/audit_opts.c" | cut -d'"' -f2); do
    grep -q -- "--$o\b" "$W/h_audit" || fail "audit --help lacks --$o"
done

# ---- the man page names every option of every help text
man_opts=$(sed 's/\\-/-/g' "$MAN")
for f in "$W/help" "$W"/h_*; do
    for o in $(grep -o -- '--[a-z][a-z_]*' "$f" | sort -u); do
        echo "$man_opts" | grep -q -- "$o\b" \
            || fail "docs/tlmpi.1 lacks $o (from $(basename "$f"))"
    done
done
for sub in inspect report tree modules audit diff compare replay; do
    grep -q "^\.SS \"tlmpi $sub" "$MAN" || fail "docs/tlmpi.1 lacks tlmpi $sub"
done
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$MAN" > "$W/groff" 2>&1 || fail "groff failed"
    [ ! -s "$W/groff" ] || { cat "$W/groff"; fail "groff warns on tlmpi.1"; }
fi

# ---- under mpirun: once, from rank 0
once() { # WANT_RC GREP_PATTERN ARGS...
    local want=$1 pat=$2; shift 2
    timeout 60 "$MPIEXEC" -n 8 "$TLMPI" "$@" > "$W/mpi" 2>&1
    local rc=$?
    [ $rc -eq "$want" ] || { cat "$W/mpi"; fail "mpirun -n 8 tlmpi $*: exit $rc, want $want"; }
    local n
    n=$(grep -c -- "$pat" "$W/mpi")
    [ "$n" -eq 1 ] || { cat "$W/mpi"; fail "mpirun -n 8 tlmpi $*: '$pat' $n times"; }
}
once 0 '^usage: tlmpi <command>' --help
once 0 '^tlmpi [0-9]' --version
once 0 '^usage: tlmpi modules ' modules --help
once 0 '^usage: tlmpi report ' report --help
once 2 '^usage: tlmpi <command>'
once 2 "unknown option '--bogus'" --bogus
once 2 "unknown option '--bogus'" --trace_dir "$W" --bogus
once 2 '^tlmpi inspect: unknown option' inspect --bogus
once 1 '^tlmpi inspect: error: .*nonexist' inspect "$W/nonexist"
once 0 'usage: mpirun -n N tlmpi' --trace_dir "$W" --help
echo "PASS"
