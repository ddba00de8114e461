# Side by side with CUDASW++4 at the pole-blocks build: long.fasta, then lengths.fasta.
. "$(dirname "$0")/common.sh"
sprot() { [ -f sprot_half.fasta ] || xz -dc sprot_half.fasta.xz > sprot_half.fasta; }
sprot
mkdir -p "$out/long" "$out/lengths"
echo "== long.fasta side by side"
OUT=$out/long bash sidebyside.sh long.fasta sprot_half.fasta 2>&1 | tail -30
echo "== lengths.fasta side by side"
OUT=$out/lengths bash sidebyside.sh lengths.fasta sprot_half.fasta 2>&1 | tail -34
