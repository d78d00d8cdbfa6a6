#!/usr/bin/env bash
# gen-docs.sh — rebuild the help block of every docs/commands/<name>.md from the output of
# `./fabprobe <name> --help`, in place, and print which files changed.
#   scripts/gen-docs.sh            rewrite the blocks (run after `make`, from anywhere)
#   FABPROBE=path/to/fabprobe scripts/gen-docs.sh
# A block is everything between the marker lines
#   <!-- help: begin -->
#   <!-- help: end -->
# and is written as a ```text fence holding the help verbatim; the rest of the page is kept
# byte for byte. The commands are those `fabprobe --help` lists; a command without a page, or
# a page without both markers, is an error (exit 1) and that page is left as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FABPROBE:-./fabprobe}
tmp=$(mktemp -d /tmp/fp-gen-docs-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

[ -x "$bin" ] || { echo "gen-docs: $bin not found or not executable (run make first)" >&2; exit 1; }
# the command names: the indented first words of the "commands:" section of the help
cmds=$("$bin" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || { echo "gen-docs: '$bin --help' lists no command" >&2; exit 1; }

status=0 changed=0
for c in $cmds; do
	page=docs/commands/$c.md
	if [ ! -f "$page" ]; then
		echo "gen-docs: $page is missing (command '$c' has no page)" >&2
		status=1
		continue
	fi
	if ! "$bin" "$c" --help > "$tmp/help" 2> "$tmp/err"; then
		echo "gen-docs: '$bin $c --help' failed: $(head -1 "$tmp/err")" >&2
		status=1
		continue
	fi
	begins=$(grep -c '^<!-- help: begin -->$' "$page" || true)
	ends=$(grep -c '^<!-- help: end -->$' "$page" || true)
	if [ "$begins" != 1 ] || [ "$ends" != 1 ]; then
		echo "gen-docs: $page needs one '<!-- help: begin -->' and one '<!-- help: end -->' line" >&2
		status=1
		continue
	fi
	awk -v help="$tmp/help" '
		/^<!-- help: begin -->$/ {
			print; print "```text"
			while ((getline line < help) > 0) print line
			print "```"; skip = 1; next
		}
		/^<!-- help: end -->$/ { skip = 0 }
		!skip { print }' "$page" > "$tmp/page"
	if ! cmp -s "$tmp/page" "$page"; then
		cat "$tmp/page" > "$page"
		echo "changed: $page"
		changed=$((changed + 1))
	fi
done
echo "gen-docs: $changed file(s) changed"
exit $status
