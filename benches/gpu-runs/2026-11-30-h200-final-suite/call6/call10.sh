# Issue 37 parts 2 and 3 at main's final commit: the narrowest equal-length shape (1,000,000 x 128)
# side by side with CUDASW++4, then the first search on a machine (machine code against PTX).
. "$(dirname "$0")/common.sh"
echo "build $(cat COMMIT); $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
bash equal_lengths.sh 128
bash start_and_stats.sh start
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz --exclude '*.tsv' . 2>/dev/null; find "$out" -mindepth 1 ! -name logs.tgz -delete
