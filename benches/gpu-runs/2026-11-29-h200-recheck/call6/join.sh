#!/usr/bin/env bash
# A finished chunk's join (its rescue) at once (as now) or at the query's end (WARPSW_JOIN=end),
# one binary (68522e5 + the switch), timeline off, long.fasta's bench as long_queries.sh long,
# alternated, two rounds; with and without the records beyond 16 bits.
cd "$(dirname "$0")"
out=${OUT:-out}/join; mkdir -p "$out"
start=$(date +%s)
[ -f warpsw ] || xz -dk warpsw.xz; [ -f warpsw-join ] || xz -dk warpsw-join.xz; chmod +x warpsw warpsw-join
echo "build $(cat COMMIT) + WARPSW_JOIN; $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
[ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
if [ ! -f sprot_half_within.wsw ]; then
    ./warpsw search -q long.fasta -d sprot_half.wsw --stats none --max-target-seqs 500 \
        --columns qseqid,sseqid,score --device gpu --quiet -o long_top.tsv
    awk -F'\t' 'NR > 1 && $3 > 32640 { print $2 }' long_top.tsv | sort -u > beyond.txt
    awk 'NR == FNR { drop[$1] = 1; next } /^>/ { id = substr($1, 2); keep = !(id in drop) } keep' \
        beyond.txt sprot_half.fasta > sprot_half_within.fasta
    ./warpsw makedb sprot_half_within.fasta -o sprot_half_within.wsw > /dev/null
fi
for round in 1 2; do
    for join in freed end; do
        for db in sprot_half sprot_half_within; do
            WARPSW_JOIN=$join ./warpsw-join bench --query long.fasta --db $db.wsw --device gpu \
                --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 > "$out/${join}_${db}_$round.log" 2>&1
        done
    done
done
python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
def rows(name):
    got = {}
    for line in open(f"{out}/{name}.log"):
        f = line.split()
        if len(f) == 3 and f[1].isdigit() and re.fullmatch(r"[\d.]+", f[2]):
            got[f[0]] = (int(f[1]), float(f[2]))
    return got
print("GCUPS with / without the records beyond 16 bits (share), rounds 1 and 2")
cols = [(j, r) for r in (1, 2) for j in ("freed", "end")]
print(f"{'query':<10}{'length':>7} " + " ".join(f"{j + ' ' + str(r):>24}" for j, r in cols))
t = {c: (rows(f"{c[0]}_sprot_half_{c[1]}"), rows(f"{c[0]}_sprot_half_within_{c[1]}")) for c in cols}
for q, (n, _) in t[cols[0]][0].items():
    cells = []
    for c in cols:
        a, b = t[c][0][q][1], t[c][1][q][1]
        cells.append(f"{a:>8.0f}/{b:>6.0f} ({a / b:.2f})")
    print(f"{q:<10}{n:>7} " + " ".join(f"{x:>24}" for x in cells))
PY
(cd "${OUT:-out}" && tar -czf join.tgz join && rm -rf join)
echo "== at $(( $(date +%s) - start )) s: done"
