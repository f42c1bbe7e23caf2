#!/usr/bin/env bash
# Instructions `clean_into` takes a line (callgrind: the same count whatever else the
# machine is doing), for each way `python/bench.py` writes an identifier (20,000 lines
# each, the corpus's DOIs and handles, 30% in capitals) and for the bench's mix of them,
# at this tree and at OLD_REV (built in a worktree of its own, with this example copied
# in): the library alone, no process start, input or output.
#
#   bash benches/clean-instructions.sh OLD_REV
set -euo pipefail
cd "$(dirname "$0")/.."
old_rev=$1
command -v valgrind >/dev/null || { echo "clean-instructions.sh: skipped: no valgrind"; exit 0; }
t=$(mktemp -d)
trap 'git worktree remove --force "$t/old" >/dev/null 2>&1 || true; rm -rf "$t"' EXIT
python3 - "$t" <<'PY'
import random, sys
sys.path.insert(0, "python")
from bench import WRAPS, base_identifiers, messy_lines
t = sys.argv[1]
ids = base_identifiers()
for k, wrap in enumerate(dict.fromkeys(WRAPS)):
    rng = random.Random(k)
    lines = [wrap.format(h.upper() if rng.random() < 0.3 else h) for h in
             (rng.choice(ids) for _ in range(20000))]
    open(f"{t}/shape{k:02d}.txt", "w").write("\n".join(lines) + "\n")
    open(f"{t}/shape{k:02d}.name", "w").write(wrap)
open(f"{t}/mix.txt", "w").write("\n".join(messy_lines(20000)) + "\n")
open(f"{t}/mix.name", "w").write("the bench's mix")
PY
cargo build --release -q --example clean_lines
cp target/release/examples/clean_lines "$t/new"
git worktree add -q --detach "$t/old" "$old_rev"
cp examples/clean_lines.rs "$t/old/examples/"
(cd "$t/old" && CARGO_TARGET_DIR="$t/target" cargo build --release -q --example clean_lines)
cp "$t/target/release/examples/clean_lines" "$t/old-bin"
count() { # binary, reps, file: instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$2" < "$3" 2>&1 >/dev/null |
    grep -o "Collected : [0-9]*" | awk '{print $3}'
}
per_line() { # binary, file
  echo $(( ($(count "$1" 1 "$2") - $(count "$1" 0 "$2")) / 20000 ))
}
echo "| written as | $old_rev | this tree | new/old |"
echo "|---|---|---|---|"
for f in "$t"/shape*.txt "$t/mix.txt"; do
  a=$(per_line "$t/old-bin" "$f"); b=$(per_line "$t/new" "$f")
  echo "| \`$(cat "${f%.txt}.name")\` | $a | $b | $(python3 -c "print(f'{$b/$a:.2f}')") |"
done
