#!/usr/bin/env bash
# Generates the benchmark tree of benches/workspace.sh and benches/search.sh: 50 top
# directories x 20 subdirectories x N files (FILES in all, rounded up), about 1 KiB each,
# four kinds of file; every 1000th file contains the needle `Needle_In_Haystack`.
#
#   benches/gen_tree.sh DIR FILES
set -euo pipefail
ROOT_DIR=$1
FILES=$2
TOPS=50
SUBS=20
PER=$(( (FILES + TOPS * SUBS - 1) / (TOPS * SUBS) ))
echo "generating $((TOPS * SUBS * PER)) files in $ROOT_DIR ..."
awk -v root="$ROOT_DIR" -v tops=$TOPS -v subs=$SUBS -v per=$PER 'BEGIN {
    split("rs md txt json", ext, " ")
    n = 0
    for (t = 0; t < tops; t++) for (s = 0; s < subs; s++) {
        dir = root "/pkg" t "/mod" s
        system("mkdir -p " dir)
        for (f = 0; f < per; f++) {
            path = dir "/file" f "." ext[(n % 4) + 1]
            for (l = 1; l <= 20; l++) {
                line = "line " l " of file " n ": the quick brown fox jumps over the lazy dog"
                if (l == 10 && n % 1000 == 0) line = line " Needle_In_Haystack"
                print line > path
            }
            close(path)
            n++
        }
    }
}'
