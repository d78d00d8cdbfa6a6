#!/usr/bin/env bash
# The documentation: the README's size; every relative link of README.md and docs/ resolves
# (file, directory, #anchor); each docs/commands/<name>.md holds `./fabprobe <name> --help`
# verbatim (scripts/gen-docs.sh refreshes it); nothing cites a document outside the
# repository or an issue number; docs/formats.md names every column of p2p.csv. Each checker
# is also run on a doctored copy, where it must fail.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
tmp=$(mktemp -d /tmp/fp-docs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmds="run p2p coll inventory topo report compare"
FP=${FABPROBE:-./fabprobe}

# ---- 1: the README stays small
size=$(wc -c < README.md)
expect "README.md is at most 12288 bytes ($size)" [ "$size" -le 12288 ]

# ---- 2: relative links resolve
# links_check ROOT FILE...: prints "file: target: why" for each broken relative link; exit 1
# when any. Fenced code blocks are skipped; http(s) and mailto links are not checked. An
# anchor must be the GitHub slug of a heading of the target (lower case, spaces to '-',
# punctuation dropped, "-1", "-2" for repeats).
links_check() {
	python3 - "$@" <<'EOF'
import os, re, sys
root = os.path.realpath(sys.argv[1])
def slugs(path):
    out, seen, fence = set(), {}, False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
            continue
        m = None if fence else re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', m.group(1))
        t = re.sub(r'[^\w\- ]', '', t.replace('`', '').lower())
        s = t.replace(' ', '-')
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else '%s-%d' % (s, n))
    return out
bad = 0
for f in sys.argv[2:]:
    fence = False
    for no, line in enumerate(open(f, encoding='utf-8'), 1):
        if line.startswith('```'):
            fence = not fence
            continue
        if fence:
            continue
        line = re.sub(r'`[^`]*`', '', line)
        for target in re.findall(r'\]\(([^)\s]+)(?:\s+"[^"]*")?\)', line):
            if re.match(r'(https?|mailto):', target):
                continue
            path, _, anchor = target.partition('#')
            full = os.path.realpath(os.path.join(os.path.dirname(f), path)) if path else os.path.realpath(f)
            why = None
            if full != root and not full.startswith(root + os.sep):
                why = 'outside the repository'
            elif not os.path.exists(full):
                why = 'no such file or directory'
            elif anchor and (not full.endswith('.md') or anchor not in slugs(full)):
                why = "no heading '%s' there" % anchor
            if why:
                print('%s:%d: %s: %s' % (f, no, target, why))
                bad += 1
sys.exit(1 if bad else 0)
EOF
}
mapfile -t pages < <(find docs -name '*.md' | sort)
links_check . README.md "${pages[@]}" > "$tmp/links" 2>&1
rc=$?
expect "every relative link of README.md and docs/ (${#pages[@]} pages) resolves, anchors included" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$tmp/links"
mkdir -p "$tmp/repo/docs"
printf '# Top\n\n## A section, with `code`\n\n[ok](#a-section-with-code) [ok](../README.md) [bad](#nowhere)\n' > "$tmp/repo/docs/a.md"
printf '# R\n[ok](docs/a.md#top) [bad](docs/missing.md) [bad](docs/a.md#a-section) [bad](../../etc/passwd) [skip](https://example.com/x)\n' > "$tmp/repo/README.md"
links_check "$tmp/repo" "$tmp/repo/README.md" "$tmp/repo/docs/a.md" > "$tmp/bad" 2>&1
expect "the link checker names each of 4 broken links of a doctored tree, and only those" \
	sh -c "[ \$(wc -l < '$tmp/bad') -eq 4 ] && grep -q 'missing.md: no such' '$tmp/bad' && grep -q '#nowhere: no heading' '$tmp/bad' && grep -q '#a-section: no heading' '$tmp/bad' && grep -q 'passwd: outside' '$tmp/bad'"

# ---- 3: each command's help block is its --help, byte for byte
# help_block FILE: the text between the marker lines, without its ```text fence
help_block() {
	awk '/^<!-- help: end -->$/ { f = 0 } f { print } /^<!-- help: begin -->$/ { f = 1 }' "$1" | sed '1{/^```text$/d}' | sed '${/^```$/d}'
}
# help_same FILE NAME: FILE's block equals ./fabprobe NAME --help (and FILE has one block)
help_same() {
	[ "$(grep -c '^<!-- help: begin -->$' "$1")" = 1 ] && [ "$(grep -c '^<!-- help: end -->$' "$1")" = 1 ] || return 1
	"$FP" "$2" --help > "$tmp/help.$2" 2>/dev/null || return 1
	help_block "$1" > "$tmp/block.$2"
	cmp -s "$tmp/help.$2" "$tmp/block.$2"
}
if [ ! -x "$FP" ]; then
	notok "help blocks of docs/commands/" "$FP is not built (make fabprobe)"
else
	for c in $cmds; do
		expect "docs/commands/$c.md holds './fabprobe $c --help' verbatim (scripts/gen-docs.sh refreshes it)" help_same "docs/commands/$c.md" "$c"
	done
	# a doctored copy: one line of the block changed, then the markers removed
	awk '/^<!-- help: begin -->$/ { f = 1 } f && /^Measurement:$/ { $0 = "Measurements:" } { print }' docs/commands/p2p.md > "$tmp/p2p.md"
	expect "a doctored copy of docs/commands/p2p.md: one line of its help block changed" sh -c "! cmp -s docs/commands/p2p.md '$tmp/p2p.md'"
	help_same "$tmp/p2p.md" p2p
	expect "... and the checker says it differs" [ $? -ne 0 ]
	grep -v '^<!-- help: end -->$' docs/commands/p2p.md > "$tmp/p2p-nomark.md"
	help_same "$tmp/p2p-nomark.md" p2p
	expect "the help check fails on a page without its end marker" [ $? -ne 0 ]
	# gen-docs.sh repairs the doctored copy in a scratch tree, and names the file it changed
	mkdir -p "$tmp/gen/scripts" "$tmp/gen/docs/commands"
	cp scripts/gen-docs.sh "$tmp/gen/scripts/" && cp docs/commands/*.md "$tmp/gen/docs/commands/"
	cp "$tmp/p2p.md" "$tmp/gen/docs/commands/p2p.md"
	FABPROBE=$(realpath "$FP") bash "$tmp/gen/scripts/gen-docs.sh" > "$tmp/gen.out" 2>&1
	rc=$?
	expect "gen-docs.sh rewrites the doctored page and names only it" \
		sh -c "[ $rc -eq 0 ] && grep -qx 'changed: docs/commands/p2p.md' '$tmp/gen.out' && [ \$(grep -c '^changed: ' '$tmp/gen.out') -eq 1 ]"
	expect "... after which the page is byte for byte the committed one" cmp -s "$tmp/gen/docs/commands/p2p.md" docs/commands/p2p.md
fi

# ---- 4: no citation of a document outside the repository, no issue number
# (the pattern is built from pieces, so that this file does not match it)
pat=''
for d in DESIGN REFERENCE MEASURING STYLE; do pat+="$d""[.]md\\|$d"" §\\|"; done
pat+='[Ii]ssue #\?[0-9]'
grep -rnI "$pat" README.md docs bench topo tests scripts > "$tmp/cites" 2>&1
expect "no file of README.md, docs/, bench/, topo/, tests/, scripts/ cites an outside document or an issue number" [ ! -s "$tmp/cites" ]
[ -s "$tmp/cites" ] && head -5 "$tmp/cites" | sed 's/^/#   /'
mkdir -p "$tmp/cite"
printf '/* as %s says */\n' "MEASURING"".md" > "$tmp/cite/a.c"
printf '# fixed in issue %d\n' 13 > "$tmp/cite/b.sh"
printf '/* (%s 6: a finding) */\n' "DESIGN"" §" > "$tmp/cite/c.c"
expect "... the same grep finds the three citations planted in a scratch tree" sh -c "[ \$(grep -rnI '$pat' '$tmp/cite' | wc -l) -eq 3 ]"

# ---- 5: docs/formats.md names every column of p2p.csv (from topo/fabric/io/p2p_csv.c's table)
cols_missing() { # FORMATS NAME...: prints each NAME that FORMATS does not hold as `NAME`
	local f=$1 c
	shift
	for c in "$@"; do grep -qF "\`$c\`" "$f" || echo "$c"; done
}
mapfile -t cols < <(grep -o 'COL(P2P_COL_[A-Z0-9_]*, *"[^"]*"' topo/fabric/io/p2p_csv.c | sed 's/.*"\([^"]*\)"$/\1/')
ncols=$(sed -n '/^enum p2p_col/,/};/p' topo/fabric/io/p2p_csv.h | grep -o 'P2P_COL_[A-Z0-9_]\+' | sort -u | wc -l)
expect "p2p_csv.c's table gives ${#cols[@]} column names, one per P2P_COL_ of p2p_csv.h ($ncols)" [ "${#cols[@]}" -eq "$ncols" ]
missing=$(cols_missing docs/formats.md "${cols[@]}")
expect "docs/formats.md names every column of p2p.csv${missing:+ (missing: ${missing//$'\n'/ })}" [ -z "$missing" ]
missing=$(cols_missing docs/formats.md run_id bw_GBps_doctored)
expect "... and the check names a column the page lacks, and only it" [ "$missing" = bw_GBps_doctored ]
exit 0
