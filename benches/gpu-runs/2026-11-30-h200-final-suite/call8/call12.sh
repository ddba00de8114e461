# After the last change to group-i16x2's launch (7fe8523): the rescue's GPU tests, and long.fasta's
# whole search with chunks scored whole on and off, outputs compared.
. "$(dirname "$0")/common.sh"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -x warpsw-tests ] || xz -dk warpsw-tests.xz
xz -dc sprot_half.fasta.xz > sprot_half.fasta &
xp=$!
timeout 200 ./warpsw-tests --ignored --test-threads 1 --exact gpu::gpu_many_long_pairs_beyond_16_bits_are_rescued \
    gpu::gpu_adversarial_cases 2>&1 | grep -E '^test |test result'
wait $xp
./warpsw makedb sprot_half.fasta -o sprot_half.wsw > /dev/null
for round in 1 2; do
  line="round $round:"
  for s in on off; do
    WARPSW_RESCUE_WHOLE_CHUNKS=$s ./warpsw search -q long.fasta -d sprot_half.wsw --gap-open 10 --gap-extend 1 \
      --columns qseqid,sseqid,score --device gpu -o /tmp/long_$s.tsv > "$out/long_${s}_$round.log" 2>&1
    line="$line  $s $(grep -o 'in [0-9.]* s = [0-9.]* GCUPS' "$out/long_${s}_$round.log" | head -1)"
  done
  cmp -s /tmp/long_on.tsv /tmp/long_off.tsv && echo "$line  (identical)" || echo "$line  OUTPUT DIFFERS"
done
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz . ; find "$out" -maxdepth 1 -type f ! -name logs.tgz -delete
