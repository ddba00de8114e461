# Side by side with CUDASW++4 at main's final commit: queries.fasta (the 20 standard queries) x half of Swiss-Prot.
. "$(dirname "$0")/common.sh"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
mkdir -p "$out/standard"
OUT=$out/standard bash sidebyside.sh queries.fasta sprot_half.fasta 2>&1 | tail -26
rm -f "$out"/standard/*.tsv "$out"/standard/*/*.tsv 2>/dev/null
tar czf "$out/standard.tgz" -C "$out" standard && rm -rf "$out/standard"
