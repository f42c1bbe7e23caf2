#!/usr/bin/env bash
# Instructions each whole command takes, counted by valgrind's callgrind (the same count
# for the same binary and input whatever else the machine is doing), for two builds of
# `hdl` on the same inputs: a change's cost without a quiet machine. Inputs: 100,000 lines
# of the corpus's identifiers, 100,000 messy DOIs, 2 MB of reference lists (data/).
#
#   bash benches/instructions.sh OLD_HDL NEW_HDL
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1; new=$2
command -v valgrind >/dev/null || { echo "instructions.sh: skipped: no valgrind"; exit 0; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
python3 - "$t" <<'PY'
import itertools, json, sys
t = sys.argv[1]
ids = [v for l in open("tests/corpus/real_ids.jsonl")
       for v in [json.loads(l).get("input") or json.loads(l).get("id")] if v and "\n" not in v]
open(f"{t}/ids.txt", "w").write("\n".join(itertools.islice(itertools.cycle(ids), 100000)) + "\n")
messy = [l.rstrip("\n") for l in open("data/messy-dois.txt")]
open(f"{t}/messy.txt", "w").write("\n".join(itertools.islice(itertools.cycle(messy), 100000)) + "\n")
refs = open("data/references.txt").read()
open(f"{t}/refs.txt", "w").write(refs * (2_000_000 // len(refs)))
PY
count() { # binary, args...: instructions
  local bin=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$t/cg.out" "$bin" "$@" >/dev/null 2>"$t/cg.err" || true
  grep -o "Collected : [0-9]*" "$t/cg.err" | awk '{print $3}'
}
printf '%-34s %15s %15s %7s\n' command old new new/old
while IFS='|' read -r name args; do
  a=$(count "$old" $args); b=$(count "$new" $args)
  printf '%-34s %15s %15s %7s\n' "$name" "$a" "$b" "$(python3 -c "print(f'{$b/$a:.3f}')")"
done <<EOF2
hdl check ids (100k)|check $t/ids.txt
hdl check --json ids (100k)|check --json $t/ids.txt
hdl clean messy (100k)|clean $t/messy.txt
hdl clean --json messy (100k)|clean --json $t/messy.txt
hdl convert --to hdl ids (100k)|convert --to hdl $t/ids.txt
hdl extract refs (2 MB)|extract $t/refs.txt
hdl dedupe ids (100k)|dedupe $t/ids.txt
EOF2
