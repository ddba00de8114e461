#!/usr/bin/env bash
# One call: a group streams up to four pairs one after another without draining its
# wavefront (warpsw-stream; WARPSW_STREAM_ITEMS=1 turns streaming off) against HEAD:
# searches on 1,000,000 x 128, 256 and 512 residues, 570,000 synthetic and half of
# Swiss-Prot; hits compared with HEAD's.
cd "$(dirname "$0")"
start=$(date +%s)
xz -dk warpsw.xz; xz -dc warpsw-stream.xz > warpsw-stream; chmod +x warpsw-stream
echo "build $(cat COMMIT) (+ streams); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
synth() { # name sequences-per-shard synthdb-args...: /tmp/name.wsw, 16 shards side by side
  local name=$1 per=$2 pids=(); shift 2
  for k in $(seq 0 15); do python3 synthdb.py --sequences $per --seed $((k + 1)) "$@" > /tmp/sh${name}_$k.fa & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p"; done
  cat $(for k in $(seq 0 15); do echo /tmp/sh${name}_$k.fa; done) | awk '/^>/ { print ">s" n++; next } { print }' > /tmp/$name.fa
  rm -f /tmp/sh${name}_*.fa; ./warpsw makedb /tmp/$name.fa -o /tmp/$name.wsw > /dev/null; rm -f /tmp/$name.fa
}
for L in 128 256 512; do synth eq$L 62500 --min $L --max $L --mean $L; done
synth synth570k 35625
xz -dc sprot_half.fasta.xz > /tmp/sprot_half.fasta; ./warpsw makedb /tmp/sprot_half.fasta -o /tmp/sprot_half.wsw > /dev/null
echo "== at $(( $(date +%s) - start )) s: databases made"
mkdir -p $OUT/s
run() { # label binary items db
  local label=$1 bin=$2 items=$3 db=$4
  WARPSW_STREAM_ITEMS=$items ./$bin search -q queries.fasta -d /tmp/$db.wsw --device gpu \
    --columns qseqid,sseqid,score -o $OUT/s/$label.$db.tsv > $OUT/s/$label.$db.log 2>&1
  echo "$db $label: $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' $OUT/s/$label.$db.log | head -1) $(grep -i -m1 'error\|panic' $OUT/s/$label.$db.log)"
}
for db in eq128 eq256 eq512 synth570k sprot_half; do
  run head warpsw "" $db
  run stream warpsw-stream "" $db
  run items1 warpsw-stream 1 $db
  run items2 warpsw-stream 2 $db
  run head2 warpsw "" $db
  run stream2 warpsw-stream "" $db
  for f in $OUT/s/*.$db.tsv; do cmp -s $OUT/s/head.$db.tsv $f || echo "$db: $f DIFFERS"; done
  echo "$db: hits compared"
  rm -f $OUT/s/*.tsv
done
./warpsw-stream bench --query short.fasta --db /tmp/sprot_half.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 5 > $OUT/s/short_stream.log 2>&1
./warpsw bench --query short.fasta --db /tmp/sprot_half.wsw --device gpu --kernels auto --gap-open 10 --gap-extend 1 --warmup 1 --repeat 5 > $OUT/s/short_head.log 2>&1
echo "short.fasta bench: head $(grep '^overall' $OUT/s/short_head.log | awk '{print $NF}'), stream $(grep '^overall' $OUT/s/short_stream.log | awk '{print $NF}'); $(grep -c 'all equal' $OUT/s/short_stream.log) reference checks equal"
tar -czf $OUT/s.tgz -C $OUT s && rm -rf $OUT/s
echo "== at $(( $(date +%s) - start )) s: done"
