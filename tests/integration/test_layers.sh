#!/usr/bin/env bash
# The layers: every include of the tree obeys the table in docs/architecture.md; the checker
# itself catches a forbidden include, an include of nothing, and a folder the table lacks.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
tmp=$(mktemp -d /tmp/fp-layers-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chk=tests/integration/layers.py

python3 $chk docs/architecture.md . > "$tmp/out" 2>&1
rc=$?
expect "every include of bench/, topo/ and kernels/ obeys docs/architecture.md's table" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$tmp/out"

# a copy of the tree with one forbidden include each way: the checker must name it
mkdir -p "$tmp/t" && cp -r bench topo kernels "$tmp/t/"
echo '#include "p2p/p2p.h"' >> "$tmp/t/topo/fabric/infer/infer.c"
python3 $chk docs/architecture.md "$tmp/t" > "$tmp/bad" 2>&1
expect "a topo/ file including bench/p2p is refused, file and line named" grep -q '^topo/fabric/infer/infer.c:[0-9]*: topo/fabric/infer includes bench/p2p' "$tmp/bad"
cp topo/fabric/infer/infer.c "$tmp/t/topo/fabric/infer/infer.c"
echo '#include "fabric/emit/emit.h"' >> "$tmp/t/topo/fabric/io/strtab.c"
python3 $chk docs/architecture.md "$tmp/t" > "$tmp/bad" 2>&1
expect "io including emit (a lower layer reaching up) is refused" grep -q 'topo/fabric/io includes topo/fabric/emit' "$tmp/bad"
cp topo/fabric/io/strtab.c "$tmp/t/topo/fabric/io/strtab.c"
echo '#include "nowhere/nothing.h"' >> "$tmp/t/bench/core/log.c"
python3 $chk docs/architecture.md "$tmp/t" > /dev/null 2>&1
expect "an include that resolves to nothing is an error (exit 2)" [ $? -eq 2 ]
cp bench/core/log.c "$tmp/t/bench/core/log.c"
mkdir -p "$tmp/t/bench/extra" && echo '#include "core/log.h"' > "$tmp/t/bench/extra/x.c"
python3 $chk docs/architecture.md "$tmp/t" > "$tmp/bad" 2>&1
expect "a folder the table does not list is refused" grep -q 'folder bench/extra has no row' "$tmp/bad"
exit 0
