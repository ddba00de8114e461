#!/usr/bin/env bash
# The CPU engine beside SSEARCH and parasail, query by query, in one run:
#   scripts/cpu_peers.sh QUERIES.fa DB.fa [THREADS]
# For each query: the whole process of `ssearch36 -T N` (Debian's fasta3),
# `parasail_aligner -t N` (Debian's parasail; its fastest exact function of
# the two tried, scores only) and `warpsw search --device cpu --stats none`,
# wall clock, and warpsw's `bench` (the kernel alone, median of three).
# BLOSUM62 with a gap of length k costing 11 + k: ssearch36 `-f -11 -g -1`,
# parasail `-o 12 -e 1` (its open counts the first residue), warpsw
# `--gap-open 11 --gap-extend 1` (checked: the same 20,000 scores).
# Prints GCUPS per core: query length x database residues / seconds / N.
set -euo pipefail
queries=$(realpath "$1"); db=$(realpath "$2"); threads=${3:-$(nproc)}
warpsw=${WARPSW:-$(dirname "$0")/../target/release/warpsw}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
# parasail_aligner reads standard input when it is not a terminal, and
# refuses a query file beside it: give it a terminal.
cat > pty_wall.py <<'EOF'
import pty, sys, time
t = time.time()
pty.spawn(sys.argv[1:])
print(f"{time.time() - t:.3f}", file=sys.stderr)
EOF
wall() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
residues=$(grep -v '^>' "$db" | tr -d '\n\r ' | wc -c)
awk '/^>/ { n++; f = sprintf("q%02d.fa", n) } { print > f }' "$queries"
"$warpsw" bench --query "$queries" --db "$db" --device cpu --kernels simt --gap-open 11 \
    --gap-extend 1 --warmup 1 --repeat 3 > bench.txt 2>&1
printf '%-8s %8s %12s %12s %12s %12s\n' length cells "ssearch36" "parasail" "warpsw" "warpsw bench"
for q in q*.fa; do
    len=$(grep -v '^>' "$q" | tr -d '\n\r ' | wc -c)
    id=$(head -1 "$q" | cut -c2- | awk '{ print $1 }')
    t_ss=$(wall ssearch36 -T "$threads" -s BL62 -f -11 -g -1 -q "$q" "$db")
    t_pa=9e9
    for f in sw_striped_profile_sat sw_scan_profile_sat; do
        t=$(python3 pty_wall.py parasail_aligner -x -a $f -o 12 -e 1 -m blosum62 -t "$threads" \
            -q "$q" -f "$db" -g "$work/p.csv" < /dev/null 2>&1 >/dev/null | tail -1)
        t_pa=$(python3 -c "print(min($t_pa, $t))")
    done
    t_ws=$(wall "$warpsw" search -q "$q" -d "$db" --gap-open 11 --gap-extend 1 --device cpu \
        --threads "$threads" --stats none -o /dev/null)
    g_bench=$(awk -v id="$id" '$1 == id || index(id, $1) { print $3; exit }' bench.txt)
    python3 - "$len" "$residues" "$threads" "$t_ss" "$t_pa" "$t_ws" "${g_bench:-0}" <<'EOF'
import sys
m, n, t = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
ss, pa, ws, bench = map(float, sys.argv[4:])
g = lambda s: m * n / s / 1e9 / t
print(f"{m:<8} {m * n:>8.2e} {g(ss):>12.2f} {g(pa):>12.2f} {g(ws):>12.2f} {bench / t:>12.2f}")
EOF
done
