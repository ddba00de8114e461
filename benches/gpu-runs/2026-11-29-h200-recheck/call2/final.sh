#!/usr/bin/env bash
# Issue 37, parts 1, 4 and 5 again at the build in COMMIT (gap costs compiled in).
#   bash final.sh pinned short lengths  part 5: each narrow configuration pinned with its gaps
#                                    compiled in (10/1) and from the parameters (9/1), alternated
#                                    (GAPS_ORDER="9 10": the other order); short.fasta and
#                                    lengths.fasta side by side (5-35,213 residues)
#   bash final.sh long whole         part 1 (long_queries.sh long); part 4: 20 queries x half of
#                                    Swiss-Prot and x 570k side by side
#   bash final.sh ecoli              part 4: 4,136 E. coli proteins x half of Swiss-Prot, whole
#                                    process of both tools, two rounds alternated, top-10 compared
cd "$(dirname "$0")"
here=$(pwd)
out=${OUT:-$here/out}; mkdir -p "$out"
start=$(date +%s)
for f in warpsw warpsw-tests; do [ -f $f ] || xz -dk $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-tests
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
sprot() {
    [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
    [ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
}
stamp() { echo "== at $(( $(date +%s) - start )) s: $*"; }

step_pinned() {
    # GAPS_ORDER="9 10" runs the parameters' gaps first (the order effect).
    sprot
    for config in g1_r8_lifted g2_r8_lifted g2_r16_lifted g4_r16_lifted auto; do
        pin=$config; [ "$config" = auto ] && pin=
        for open in ${GAPS_ORDER:-10 9}; do
            set -- $open 1
            WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw bench --query short.fasta --db sprot_half.wsw \
                --device gpu --kernels auto --gap-open $1 --gap-extend $2 --warmup 1 --repeat 5 \
                > "$out/narrow_${config}_$1.log" 2>&1
        done
    done
    for open in 10 9; do
        ./warpsw search -q short.fasta -d sprot_half.wsw --device gpu --gap-open $open --gap-extend 1 \
            --explain 2>&1 | grep -m2 'lifted' | sed "s/^/$open\/1 explain: /"
    done
    python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
configs = "g1_r8_lifted g2_r8_lifted g2_r16_lifted g4_r16_lifted auto".split()
cols = [(c, g) for c in configs for g in ("10", "9")]
table, lens = {}, {}
for c, g in cols:
    for line in open(f"{out}/narrow_{c}_{g}.log"):
        f = line.split()
        if len(f) == 3 and f[1].isdigit() and re.fullmatch(r"[\d.]+", f[2]):
            table.setdefault(f[0], {})[(c, g)] = float(f[2]); lens[f[0]] = int(f[1])
print("GCUPS; each configuration pinned, gaps 10/1 (compiled in) and 9/1 (from the parameters)")
print("length " + " ".join(f"{c.replace('_lifted', '') + ' ' + g + '/1':>12}" for c, g in cols))
for q, row in table.items():
    print(f"{lens[q]:>6} " + " ".join(f"{row.get(k, 0):>12.1f}" for k in cols))
PY
    stamp pinned
}

step_short() {
    sprot
    mkdir -p "$out/short"
    OUT=$out/short bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -30
    stamp short side by side
}

step_lengths() {
    sprot
    mkdir -p "$out/lengths"
    OUT=$out/lengths bash sidebyside.sh lengths.fasta sprot_half.fasta 2>&1 | tail -28
    stamp lengths side by side
}

step_long() {
    OUT=$out/long bash long_queries.sh long 2>&1 | tail -45
    stamp long
}

step_whole() {
    sprot
    mkdir -p "$out/sprot" "$out/s570k"
    OUT=$out/sprot bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -28
    stamp queries x half of Swiss-Prot
    [ -f synth570k.fa ] || python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa
    OUT=$out/s570k bash sidebyside.sh queries.fasta synth570k.fa 2>&1 | tail -28
    stamp queries x 570k
}

step_ecoli() {
    # sidebyside.sh's searches, without its one-query-at-a-time bench (4,136 queries).
    sprot
    [ -f ecoli.fasta ] || xz -dc ecoli_k12_proteome.fasta.xz > ecoli.fasta
    work=${WORK:-/tmp/sidebyside}
    [ -x $work/cudasw4/align ] && [ -f $work/cs4_sprot_half.done ] && [ -f $work/db_sprot_half.wsw ] \
        || { echo "run a sidebyside.sh on sprot_half first"; return; }
    mkdir -p "$out/ecoli"
    # As sidebyside.sh: CUDASW++4 first aligns a copy of the first query (its start-up), which
    # top_scores_agree.py leaves out; --verbose as there.
    { awk '/^>/{n++} n==1' ecoli.fasta | sed '1s/^>.*/>warmup_copy/'; cat ecoli.fasta; } > ecoli_cs4.fasta
    for round in 1 2; do
        (cd $work && /usr/bin/time -f "WALL %e" ./cudasw4/align --query "$here/ecoli_cs4.fasta" --db cs4db/sprot_half \
            --top 10 --mat blosum62 --gop -11 --gex -1 --uploadFull --verbose --dpx --tsv \
            --of "$out/ecoli/cudasw4_hits.tsv" > "$out/ecoli/cudasw4_$round.log" 2>&1)
        /usr/bin/time -f "WALL %e" ./warpsw search -q ecoli.fasta -d $work/db_sprot_half.wsw --gap-open 10 \
            --gap-extend 1 --columns qseqid,sseqid,score --device gpu -o "$out/ecoli/warpsw_top10.tsv" \
            > "$out/ecoli/warpsw_$round.log" 2>&1
        echo "round $round: CUDASW++4 $(grep -o 'Total time: [0-9.]* s' $out/ecoli/cudasw4_$round.log | tail -1), wall $(grep -o 'WALL [0-9.]*' $out/ecoli/cudasw4_$round.log);" \
             "warpsw $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $out/ecoli/warpsw_$round.log | head -1), wall $(grep -o 'WALL [0-9.]*' $out/ecoli/warpsw_$round.log)"
    done
    stamp ecoli timed
    ./warpsw search -q ecoli.fasta -d $work/db_sprot_half.wsw --gap-open 10 --gap-extend 1 \
        --max-target-seqs 5000 --evalue 1e300 --columns qseqid,sseqid,score --device gpu \
        -o "$out/ecoli/warpsw_hits.tsv" > /dev/null 2>&1
    python3 top_scores_agree.py "$out/ecoli/cudasw4_hits.tsv" "$out/ecoli/warpsw_hits.tsv" 2>&1 | tail -3
    rm -f "$out/ecoli/"*hits*.tsv "$out/ecoli/warpsw_top10.tsv"
    stamp ecoli checked
}

for step in "$@"; do
    echo "== $step"
    "step_$step"
done
# The side-by-side archives unpacked without warpsw's 5,000-best hit lists, then every log in one archive.
for t in $(find "$out" -name 'sidebyside_*.tgz'); do
    d=${t%.tgz}; mkdir -p "$d" && tar -xzf "$t" -C "$d" && rm -f "$t" "$d"/warpsw_hits_*.tsv
done
(cd "$out" && find . -type f ! -name stdout.txt ! -name logs.tgz | tar -czf logs.tgz -T - \
    && find . -mindepth 1 ! -name logs.tgz ! -name stdout.txt -delete)
stamp done
