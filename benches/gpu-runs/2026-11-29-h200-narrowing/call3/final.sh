#!/usr/bin/env bash
# One call: the window copied with eight profile reads in flight a thread (warpsw-win)
# against HEAD: searches on 1,000,000 x 128, 256 and 512 residues and on 570,000
# synthetic sequences, the short queries one at a time; hits compared.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dc warpsw-win.xz > warpsw-win; chmod +x warpsw-win
echo "build $(cat COMMIT) (+ window reads in flight); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
synth() { # name sequences-per-shard synthdb-args...: /tmp/name.wsw, 16 shards side by side
  local name=$1 per=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $per --seed $((k + 1)) "$@" > /tmp/sh${name}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${name}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/$name.fa
  rm -f /tmp/sh${name}_*.fa; ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw > /dev/null; rm -f /tmp/$name.fa
}
for L in 128 256 512; do synth eq$L 62500 --min $L --max $L --mean $L; done
synth synth570k 35625
echo "== at $(( $(date +%s) - start )) s: databases made"
mkdir -p $OUT/s
run() { # label binary db
  local label=$1 bin=$2 db=$3
  ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$db.tsv > $OUT/s/$label.$db.log 2>&1
  echo "$db $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$db.log | head -1)"
}
for db in eq128 eq256 eq512 synth570k; do
  for round in 1 2 3; do run head$round warpsw $db; run win$round warpsw-win $db; done
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/head1.$db.tsv $f || echo "$db: $f differs"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.tsv
done
for round in 1 2; do
  for bin in warpsw warpsw-win; do
    ./$bin bench --query short.fasta --db /tmp/synth570k.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 \
      --warmup 1 --repeat 7 > $OUT/s/short_${bin}_$round.log 2>&1
    echo "round $round $bin short.fasta x synth570k: $(grep '^overall' $OUT/s/short_${bin}_$round.log)"
  done
done
paste <(grep -A23 '^query ' $OUT/s/short_warpsw_2.log) <(grep -A23 '^query ' $OUT/s/short_warpsw-win_2.log | awk '{ print $NF }')
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
echo "== at $(( $(date +%s) - start )) s: done"
