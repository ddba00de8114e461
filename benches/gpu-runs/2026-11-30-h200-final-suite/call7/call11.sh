# The 144-residue query on 1,000,000 x 128 residues: 3,411 GCUPS in one run, 4,005 in another.
# Is it per process? Six processes of that query alone, two of the 20 queries, one with the timeline.
. "$(dirname "$0")/common.sh"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
pids=(); for s in $(seq 1 16); do python3 synthdb.py --sequences 62500 --min 128 --max 128 --mean 128 --seed $((12800 + s)) > /tmp/eq_$s.fa & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
cat /tmp/eq_{1..16}.fa | awk '/^>/ { printf ">eq%07d\n", n++; next } { print }' > /tmp/eq128.fa; rm -f /tmp/eq_*.fa
./warpsw makedb /tmp/eq128.fa -o /tmp/eq128.wsw > /dev/null
cp P02232.fasta q144.fa
grep -c '>' q144.fa
b() { ./warpsw bench --query "$1" --db /tmp/eq128.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 --warmup "$2" --repeat 9 --check 0 2>&1; }
for i in 1 2 3 4 5 6; do echo "q144 alone, process $i, warmup 1: $(b q144.fa 1 | awk '$2 == "144" { print $3 }')"; done
for i in 1 2; do echo "q144 alone, process $i, warmup 5: $(b q144.fa 5 | awk '$2 == "144" { print $3 }')"; done
for i in 1 2; do echo "20 queries, process $i: $(b queries.fasta 1 | awk '$2 ~ /^[0-9]+$/ && NR < 8 { printf "%s:%s ", $2, $3 }')"; done
WARPSW_TIMELINE=chunks b q144.fa 1 > "$out/timeline_q144.log"
tail -40 "$out/timeline_q144.log"
