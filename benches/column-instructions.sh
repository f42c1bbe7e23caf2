#!/usr/bin/env bash
# Instructions a line that the column functions of the Python package take inside their
# call (callgrind, counted only within the call: the same count whatever else the machine
# is doing), on one thread, over 200,000 of `python/bench.py`'s messy lines: `arrow.clean`
# with a `string` or `string_view` column in and out, and the Polars plugin's call. Two
# packages installed side by side (`pip install --target DIR`), e.g. the release wheel of a
# revision and this tree's:
#
#   bash benches/column-instructions.sh OLD_DIR NEW_DIR
#
# PYTHON is a Python with pyarrow and polars (default: python3). The count of a call is
# that of three calls less that of one, halved; Python's hashes and the addresses are
# fixed (PYTHONHASHSEED, setarch -R) so that the count repeats.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1; new=$2
python=${PYTHON:-python3}
command -v valgrind >/dev/null || { echo "column-instructions.sh: skipped: no valgrind"; exit 0; }
"$python" -c "import pyarrow, polars" 2>/dev/null ||
  { echo "column-instructions.sh: skipped: $python has no pyarrow or polars"; exit 0; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cat > "$t/calls.py" <<'PY'
import sys
sys.path.insert(0, "python")
from bench import messy_lines
sys.path.pop(0)
import pyarrow as pa, polars as pl
import handle_id.arrow as ha, handle_id.polars  # noqa: F401 (the namespace)
lines = messy_lines(200_000)
string, views = pa.array(lines, type=pa.string()), pa.array(lines, type=pa.string_view())
frame = pl.DataFrame({"doi": lines})
plugin = pl.col("doi").handle_id.clean(threads=1)
calls = {
    "string in, string out": lambda: ha.clean(string, threads=1),
    "string in, string_view out": lambda: ha.clean(string, string_view=True, threads=1),
    "string_view in, string out": lambda: ha.clean(views, threads=1),
    "string_view in and out": lambda: ha.clean(views, string_view=True, threads=1),
    "the Polars plugin": lambda: frame.select(plugin),
}
call = calls[sys.argv[1]]
for _ in range(int(sys.argv[2])):
    call()
PY
count() { # package dir, call, times: instructions within the calls
  # (The arrow functions are entered from Python through `cfunction_call`, the plugin
  # from Polars through its symbol.)
  local within=cfunction_call
  [ "$2" = "the Polars plugin" ] && within=_polars_plugin_clean
  PYTHONHASHSEED=0 PYTHONPATH=$1 setarch -R valgrind --tool=callgrind --toggle-collect="$within" \
    --callgrind-out-file=/dev/null "$python" "$t/calls.py" "$2" "$3" 2>&1 |
    grep -o "Collected : [0-9]*" | awk '{print $3}'
}
per_line() { # package dir, call
  echo $(( ($(count "$1" "$2" 3) - $(count "$1" "$2" 1)) / 2 / 200000 ))
}
echo "| call | old | new | new/old |"
echo "|---|---|---|---|"
for c in "string in, string out" "string in, string_view out" "string_view in, string out" \
  "string_view in and out" "the Polars plugin"; do
  a=$(per_line "$old" "$c"); b=$(per_line "$new" "$c")
  echo "| $c | $a | $b | $(python3 -c "print(f'{$b/$a:.2f}')") |"
done
