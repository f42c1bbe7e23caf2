#!/usr/bin/env bash
# hdl dedupe's memory and time against the distinct handles it keeps: peak RSS (GNU time)
# and seconds at 1 million and 10 million distinct DOIs, beside `hdl check` on the same file
# (the floor: the same reading and parsing, nothing kept). Run alone on the machine.
#
#   bash cli/benches/dedupe-memory.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --quiet --release -p handle-cli
hdl=$PWD/target/release/hdl
dir=$PWD/target/dedupe-memory
mkdir -p "$dir"
for n in 1000000 10000000; do
  file=$dir/distinct-$n.txt
  [ -s "$file" ] || awk -v n="$n" 'BEGIN { srand(7); for (i = 0; i < n; i++)
    printf "10.%d/journal.%08d.x%x\n", 1000 + i % 9000, i, int(rand() * 1073741824) }' >"$file"
  for command in dedupe check; do
    /usr/bin/time -f "%e %M" -o "$dir/time" "$hdl" "$command" "$file" >/dev/null 2>&1 || true
    read -r seconds kb <"$dir/time"
    printf '%-7s %9d distinct  %6.2f s  %8.1f MB peak  %5.1f bytes a handle\n' \
      "$command" "$n" "$seconds" "$(echo "$kb / 1024" | bc -l)" "$(echo "$kb * 1024 / $n" | bc -l)"
  done
done
