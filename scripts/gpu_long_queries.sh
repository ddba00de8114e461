#!/usr/bin/env bash
# On the GPU machine, from gpu-bundle/ (scripts/gpu.sh with SPROT=1 packs it):
#   bash long_queries.sh tests     # the GPU tests of the 32-bit rescue
#   bash long_queries.sh long      # benches/queries/long.fasta (5,030-35,213 residues) against
#                                  # half of Swiss-Prot, which holds every query: side by side
#                                  # with CUDASW++4, then warpsw alone on the same database
#                                  # without the records that score beyond 16 bits
#   bash long_queries.sh lengths   # benches/queries/lengths.fasta (5-35,213) side by side
#   bash long_queries.sh short     # benches/queries/short.fasta (5-256): where short queries
#                                  # should leave the query-group kernel
#   bash long_queries.sh narrow    # short.fasta with each narrow query-group configuration
#   bash long_queries.sh whole     # long.fasta with the longest chunks scored whole by the rescue
#                                  # and not (WARPSW_RESCUE_WHOLE_CHUNKS), with and without the
#                                  # records beyond 16 bits, two rounds
#   bash long_queries.sh titins    # the two titins: every timed run's seconds, with and without
#                                  # the timeline, with and without the records beyond 16 bits:
#                                  # how often a search of theirs runs slow
# Prints a table per step; logs under ${OUT:-out}/.
. "$(dirname "$0")/common.sh"
[ -x warpsw-tests ] || xz -dk warpsw-tests.xz

sprot() { # half of Swiss-Prot as FASTA and .wsw, made once
    [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
    [ -f sprot_half.wsw ] || ./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
}

# Half of Swiss-Prot without the records that score above 32,640 against
# any of long.fasta's queries: sprot_half_within.wsw.
within() {
    ./warpsw search -q long.fasta -d sprot_half.wsw --stats none --max-target-seqs 500 \
        --columns qseqid,sseqid,score --device gpu --quiet -o "$out/long_top.tsv"
    awk -F'\t' 'NR > 1 && $3 > 32640 { print $2 }' "$out/long_top.tsv" | sort -u > "$out/beyond_16_bits.txt"
    awk 'NR == FNR { drop[$1] = 1; next }
         /^>/ { id = substr($1, 2); keep = !(id in drop) } keep' "$out/beyond_16_bits.txt" sprot_half.fasta \
        > sprot_half_within.fasta
    ./warpsw makedb sprot_half_within.fasta -o sprot_half_within.wsw > /dev/null
}

step_tests() {
    # With the longest chunks scored whole by the rescue (the default) and
    # without (every chunk by its 16-bit kernel, the rescue after it).
    for whole in on off; do
        echo "WARPSW_RESCUE_WHOLE_CHUNKS=$whole"
        WARPSW_RESCUE_WHOLE_CHUNKS=$whole ./warpsw-tests --ignored --test-threads 1 \
            gpu_many_long_pairs_beyond_16_bits_are_rescued gpu_adversarial_cases 2>&1 | tail -8
    done
}

step_long() {
    sprot
    OUT=$out bash sidebyside.sh long.fasta sprot_half.fasta 2>&1 | tail -20
    # The same queries without their hits beyond 16 bits: every record that scores above
    # 32,640 against any of them left out.
    within
    echo "records beyond 16 bits against some query: $(wc -l < "$out/beyond_16_bits.txt")"
    for db in sprot_half sprot_half_within; do
        ./warpsw bench --query long.fasta --db "$db.wsw" --device gpu --kernels auto --gap-open 10 \
            --gap-extend 1 --warmup 1 --repeat 3 > "$out/bench_$db.log" 2>&1
    done
    python3 - "$out" <<'PY'
import sys
from bench_rows import rows
out = sys.argv[1]
a, b = rows(f"{out}/bench_sprot_half.log"), rows(f"{out}/bench_sprot_half_within.log")
print(f"{'query':<14}{'length':>8}{'with':>10}{'without':>10}{'share':>8}   (warpsw GCUPS, hits beyond 16 bits in the database or not)")
for q, (n, g) in a.items():
    h = b[q][1]
    print(f"{q[:13]:<14}{n:>8}{g:>10.1f}{h:>10.1f}{g / h:>8.2f}")
PY
    # Where the time of the longest query goes.
    awk '/^>/ { n++ } n == 10' long.fasta > titin.fa
    WARPSW_TIMELINE=chunks ./warpsw search -q titin.fa -d sprot_half.wsw --device gpu --quiet \
        --columns qseqid,sseqid,score -o /dev/null 2> "$out/timeline_titin.txt"
    grep -E 'timeline|chunk (0|1|8|9|16|24|32):' "$out/timeline_titin.txt" | sed 's/^warpsw: GPU [^:]*://'

}

step_short() {
    # Short queries: CUDASW++4 beside group-i16x2 (its mapping: the database
    # sequences in the lanes, the query streamed), then both group kernels
    # and auto one query at a time on half of Swiss-Prot and on 570,000
    # synthetic sequences, then whole searches (queries paired) with each.
    sprot
    OUT=$out KERNEL=group-i16x2 bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -28
    [ -f synth570k.wsw ] || { python3 synthdb.py --sequences 570000 --seed 7 > synth570k.fa \
        && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null; }
    for db in sprot_half synth570k; do
        ./warpsw bench --query short.fasta --db "$db.wsw" --device gpu \
            --kernels group-i16x2,query-group-i16x2,auto --gap-open 10 --gap-extend 1 \
            --warmup 1 --repeat 5 > "$out/short_bench_$db.log" 2>&1
        echo "== $db, one query at a time (GCUPS)"
        grep -A30 '^query ' "$out/short_bench_$db.log" | head -26
        for kernel in group-i16x2 auto; do
            ./warpsw search -q short.fasta -d "$db.wsw" --kernel $kernel --device gpu \
                --columns qseqid,sseqid,score -o "$out/short_search_${db}_$kernel.tsv" \
                2> "$out/short_search_${db}_$kernel.log"
            echo "search, $kernel:" $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS\|[0-9.]* s in all' "$out/short_search_${db}_$kernel.log")
        done
        cmp -s "$out/short_search_${db}_group-i16x2.tsv" "$out/short_search_${db}_auto.tsv" \
            && echo "hits identical" || echo "HITS DIFFER"
    done
}

step_narrow() {
    # The query-group configurations of narrow groups (1-4 lanes) for short
    # queries: each pinned in turn, then auto's own choice, one query at a
    # time on half of Swiss-Prot; then auto side by side with CUDASW++4.
    sprot
    for config in auto g1_r8_lifted g2_r8_lifted g2_r16_lifted g4_r16_lifted g8_r8_lifted; do
        pin=$config; [ "$config" = auto ] && pin=
        WARPSW_QUERY_GROUP_CONFIG=$pin ./warpsw bench --query short.fasta --db sprot_half.wsw \
            --device gpu --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 5 \
            > "$out/narrow_$config.log" 2>&1
    done
    python3 - "$out" <<'PY'
import sys
from bench_rows import rows
out = sys.argv[1]
configs = "auto g1_r8_lifted g2_r8_lifted g2_r16_lifted g4_r16_lifted g8_r8_lifted".split()
table, lens = {}, {}
for c in configs:
    for q, (n, g) in rows(f"{out}/narrow_{c}.log").items():
        table.setdefault(q, {})[c] = g; lens[q] = n
print("query length " + " ".join(f"{c.replace('_lifted', ''):>8}" for c in configs))
for q, row in table.items():
    print(f"{lens[q]:>12} " + " ".join(f"{row.get(c, 0):>8.1f}" for c in configs))
PY
    OUT=$out bash sidebyside.sh short.fasta sprot_half.fasta 2>&1 | tail -28
    awk '/^>/ { n++ } n == 1' short.fasta > q5.fa
    WARPSW_TIMELINE=on ./warpsw search -q q5.fa -d sprot_half.wsw --device gpu --quiet \
        --columns qseqid,sseqid,score -o /dev/null 2>&1 | tail -3
}

step_titins() {
    # With the records beyond 16 bits in the database, searches of the
    # longest queries ran at either about 5,000 or about 4,430 GCUPS, the
    # slow ones seen only with the timeline off (benches/RESULTS.md, "Issue
    # 37 parts 1, 4 and 5 at the gap-costs build"). Every timed run of
    # three processes a setting, the scalar check left out (about 190 s).
    sprot
    [ -f sprot_half_within.wsw ] || within
    awk '/^>/ { n++ } n >= 10' long.fasta > titins.fa
    rm -f "$out"/titins_*.csv
    for round in 1 2 3; do
        for timeline in off chunks; do
            for db in sprot_half sprot_half_within; do
                WARPSW_TIMELINE=$timeline ./warpsw bench --query titins.fa --db "$db.wsw" --device gpu \
                    --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 9 --check 0 \
                    --csv "$out/titins_${timeline}_$db.csv" > "$out/titins_${timeline}_${db}_$round.log" 2>&1
            done
        done
    done
    python3 - "$out" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
runs = {}
for timeline in ("off", "chunks"):
    for db in ("sprot_half", "sprot_half_within"):
        for row in csv.reader(open(f"{out}/titins_{timeline}_{db}.csv")):
            if row and row[0] != "device":
                runs.setdefault((timeline, db, row[4]), []).append(float(row[9]))
# Slow: over 1.08 times the query's fastest run on that database, timeline on or off.
fastest = {}
for (_, db, q), t in runs.items():
    fastest[db, q] = min(fastest.get((db, q), t[0]), min(t))
print(f"{'timeline':<9}{'database':<19}{'query':<8}{'runs':>5}{'min s':>8}{'median':>8}{'max':>8}{'slow':>6}")
for (timeline, db, q), t in runs.items():
    slow = sum(x > 1.08 * fastest[db, q] for x in t)
    print(f"{timeline:<9}{db:<19}{q:<8}{len(t):>5}{min(t):>8.3f}{statistics.median(t):>8.3f}{max(t):>8.3f}{slow:>6}")
PY
}

step_whole() {
    sprot
    [ -f sprot_half_within.wsw ] || within
    for round in 1 2; do
        for whole in on off; do
            for db in sprot_half sprot_half_within; do
                WARPSW_RESCUE_WHOLE_CHUNKS=$whole ./warpsw bench --query long.fasta --db "$db.wsw" \
                    --device gpu --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 3 \
                    --check 0 > "$out/whole_${whole}_${db}_$round.log" 2>&1
            done
        done
    done
    python3 - "$out" <<'PY'
import sys
from bench_rows import rows
out = sys.argv[1]
cols = [(w, r) for r in (1, 2) for w in ("on", "off")]
t = {c: tuple(rows(f"{out}/whole_{c[0]}_{db}_{c[1]}.log") for db in ("sprot_half", "sprot_half_within")) for c in cols}
print("GCUPS with / without the records beyond 16 bits (share); whole chunks on and off, rounds 1 and 2")
print(f"{'query':<10}{'length':>7} " + " ".join(f"{w + ' ' + str(r):>22}" for w, r in cols))
for q, (n, _) in t[cols[0]][0].items():
    cells = [f"{t[c][0][q][1]:>7.0f}/{t[c][1][q][1]:>6.0f} ({t[c][0][q][1] / t[c][1][q][1]:.2f})" for c in cols]
    print(f"{q:<10}{n:>7} " + " ".join(f"{x:>22}" for x in cells))
PY
}

step_lengths() {
    sprot
    OUT=$out bash sidebyside.sh lengths.fasta sprot_half.fasta 2>&1 | tail -28
}

for step in "$@"; do
    echo "== $step"
    "step_$step"
done
