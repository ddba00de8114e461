#!/usr/bin/env bash
# Run 95's command (from gpu-bundle/, an experimental build with the _x3
# configurations, not on main): clocks and power under score-only searches
# of the 570k database; ncu stall reasons of two configurations.
set -u
cd "$(dirname "$0")"
out=${OUT:-/tmp/out}
for f in warpsw; do [ -f "$f.xz" ] && xz -d -f "$f.xz"; done
python3 synthdb.py --sequences 570000 --seed 1 > synth570k.fa && ./warpsw makedb synth570k.fa -o synth570k.wsw > /dev/null
awk '/^>/ { n++ } n >= 19' queries.fasta > q2long.fasta
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 > $out/smi.csv &
smi=$!
for config in g8_r20_queries g8_r12_queries_x3; do
  for r in 1 2; do
    WARPSW_QUERY_GROUP_CONFIG=$config ./warpsw search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 \
      --device gpu --kernel query-group-i16x2 --columns qseqid,sseqid,score -o /tmp/pin.tsv 2>&1 | tail -1 | cut -c1-150
    echo "$(date +%T.%N) end $config $r" >> $out/marks.txt
  done
done
./warpsw search -q queries.fasta -d synth570k.wsw --gap-open 10 --gap-extend 1 --device gpu --columns qseqid,sseqid,score -o /tmp/auto.tsv 2>&1 | tail -1 | cut -c1-150
echo "$(date +%T.%N) end auto" >> $out/marks.txt
kill $smi
for config in g8_r20_queries g8_r12_queries_x3; do
  WARPSW_QUERY_GROUP_CONFIG=$config timeout 150 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio",sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
    -k "regex:^sw_query_group_i16x2_$config\$" --launch-skip 300 -c 1 \
    ./warpsw search -q q2long.fasta -d synth570k.wsw --device gpu --kernel query-group-i16x2 --gpu-streams 1 -o /tmp/ncu_hits.tsv > $out/ncu_$config.txt 2>&1
  echo "ncu $config rc $?"
  grep -E "stalled|Frequency|Duration|Issued Warp|Eligible|pipe|bank|wavefronts|Achieved Occ" $out/ncu_$config.txt | awk '$NF != "0" && $NF != "0.00"' | head -40
done
