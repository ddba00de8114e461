#!/usr/bin/env bash
# On a machine of two GPUs, from gpu-bundle/: the database split over both (the default)
# against one GPU and against both sharing chunks (--balance dynamic), same output, whole
# process and the search's GCUPS: 20 queries x half of Swiss-Prot (score-only output), then
# 4,136 E. coli proteins x UniProt 20k (default output, query batches on each GPU).
. "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$out/gpus.txt"
[ -f s.wsw ] || { xz -dc sprot_half.fasta.xz > sprot_half.fasta && ./warpsw makedb sprot_half.fasta -o s.wsw > /dev/null; }
[ -f u.wsw ] || { xz -dc uniprot20k.fasta.xz > u20k.fasta && ./warpsw makedb u20k.fasta -o u.wsw > /dev/null; }
[ -f ecoli_k12_proteome.fasta ] || xz -dk ecoli_k12_proteome.fasta.xz
run() { # name, then warpsw search arguments
    local name=$1; shift
    /usr/bin/time -f "$name: whole process %e s" ./warpsw search "$@" -o "$out/$name.tsv" 2> "$out/$name.err"
    grep -o '[0-9.]* GCUPS' "$out/$name.err" | head -1 | sed "s/^/$name: /"
    tail -1 "$out/$name.err"
}
for round in 1 2; do
    for setting in one:0 split:0,1 dynamic:0,1; do
        name=${setting%%:*}; devices=${setting#*:}
        extra=(); [ "$name" = dynamic ] && extra=(--balance dynamic)
        run "sprot_$name" -q queries.fasta -d s.wsw --devices "$devices" "${extra[@]}" \
            --columns qseqid,sseqid,score
    done
done
cmp "$out/sprot_one.tsv" "$out/sprot_split.tsv" && echo "sprot: split output = one GPU's"
cmp "$out/sprot_one.tsv" "$out/sprot_dynamic.tsv" && echo "sprot: dynamic output = one GPU's"
for setting in one:0 split:0,1; do
    name=${setting%%:*}; devices=${setting#*:}
    run "ecoli_$name" -q ecoli_k12_proteome.fasta -d u.wsw --devices "$devices"
done
cmp "$out/ecoli_one.tsv" "$out/ecoli_split.tsv" && echo "ecoli: split output = one GPU's"
grep -h "GPUs, the database split" "$out"/*.err | head -1 | cut -c1-300
rm -f "$out"/*.tsv
