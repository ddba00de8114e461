#!/usr/bin/env bash
# Streamed pairs, fourth version: where its scores differ from main's (debug call).
cd "$(dirname "$0")"
start=$(date +%s); el() { echo $(( $(date +%s) - start )); }
for f in warpsw warpsw-stream warpsw-tests-stream; do [ -f $f ] || xz -d $f.xz & done
for p in $(jobs -p); do wait "$p"; done
chmod +x warpsw warpsw-stream warpsw-tests-stream
python3 synthdb.py --sequences 20000 --seed 5 --min 128 --max 128 --mean 128 | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/e.fa
./warpsw makedb /tmp/e.fa -o /tmp/e.wsw > /dev/null
python3 synthdb.py --sequences 20000 --seed 6 > /tmp/m.fa; ./warpsw makedb /tmp/m.fa -o /tmp/m.wsw > /dev/null
mkdir -p $OUT/d
s() { # label bin db env...
  local label=$1 bin=$2 db=$3; shift 3
  env "$@" ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu --stats none --top 20000 \
    --columns qseqid,sseqid,score -o $OUT/d/$label.$db.tsv > $OUT/d/$label.$db.log 2>&1 || echo "$label $db failed: $(tail -2 $OUT/d/$label.$db.log)"
  sort $OUT/d/$label.$db.tsv > $OUT/d/$label.$db.sorted
}
for db in e m; do
  s main warpsw $db
  for it in 1 2 3 4; do s items$it warpsw-stream $db WARPSW_STREAM_ITEMS=$it; done
  for c in g8_r20_queries g8_r20_lifted g8_r24_lifted_2rows; do
    s main_$c warpsw $db WARPSW_QUERY_GROUP_CONFIG=$c
    s items4_$c warpsw-stream $db WARPSW_QUERY_GROUP_CONFIG=$c WARPSW_STREAM_ITEMS=4
  done
  for f in $OUT/d/*.$db.sorted; do
    base=main; case $f in *_g8*) base=main_$(basename $f .$db.sorted | sed 's/^items4_//; s/^main_//');; esac
    n=$(comm -3 $OUT/d/$base.$db.sorted $f | wc -l); echo "$db $(basename $f .sorted) vs $base: $n lines differ of $(wc -l < $f)"
  done
done
# The differing scores side by side for items 4 on e.
join -j1 <(awk '{print $1"|"$2, $3}' $OUT/d/main.e.tsv | sort) <(awk '{print $1"|"$2, $3}' $OUT/d/items4.e.tsv | sort) | awk '$2 != $3' | head -30
echo "== at $(el) s: hand-over test"
./warpsw-tests-stream --ignored --exact gpu::gpu_query_pair_hands_over_in_launches_of_part_of_a_chunk 2>&1 | tail -15
echo "== at $(el) s: memcheck"
WARPSW_STREAM_ITEMS=4 timeout 200 compute-sanitizer --tool memcheck --print-limit 5 ./warpsw-stream search -q P02232.fasta -d /tmp/e.wsw --device gpu --stats none --gpu-streams 1 -o /tmp/mc.tsv 2>&1 | tail -30
rm -f $OUT/d/*.sorted; tar -czf $OUT/d.tgz -C $OUT d && rm -rf $OUT/d
echo "== at $(el) s: done"
