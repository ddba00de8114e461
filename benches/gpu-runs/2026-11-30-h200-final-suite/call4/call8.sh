# Side by side with CUDASW++4 at main's final commit: lengths.fasta (5-35,213 residues) x half of Swiss-Prot.
. "$(dirname "$0")/common.sh"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
[ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta
mkdir -p "$out/lengths"
OUT=$out/lengths bash sidebyside.sh lengths.fasta sprot_half.fasta 2>&1 | tail -34
rm -f "$out"/lengths/*.tsv "$out"/lengths/*/*.tsv 2>/dev/null
tar czf "$out/lengths.tgz" -C "$out" lengths && rm -rf "$out/lengths"
