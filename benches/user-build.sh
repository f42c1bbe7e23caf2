#!/usr/bin/env bash
# What a user's build costs: a new crate that depends on handle-id as a registry hands it
# out (the packages `cargo package --workspace` makes, with the manifests it rewrites) and
# uses one `hdl!` literal, against the same crate using uuid 1.11's proc-macro `uuid!`
# (feature macro-diagnostics) and using the newest uuid 1.x, whose `uuid!` is a
# `macro_rules!` over a `const fn` parser, all timed in the same run. Then the rebuild after an edit of a
# file with 100 literals, and the user's dependency tree.
#
#   bash benches/user-build.sh [RUNS]      (default 3 runs; prints the median of each)
#
# Needs the registry for uuid and the dependencies (fetched before anything is timed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
root=$PWD
work=$root/target/user-build
rm -rf "$work"
mkdir -p "$work/registry"

# No verification here: the user crates below build the packages, as a user would.
cargo package --workspace --quiet --allow-dirty --no-verify >/dev/null
for crate in handle-id handle-id-core handle-macros; do
  tar xzf "target/package/$crate-0.1.0.crate" -C "$work/registry"
done

# user-hdl: handle-id from the unpacked packages, one literal.
new_crate() { # name, dependency line, patch section, main.rs
  mkdir -p "$work/$1/src"
  printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s\n\n%s\n[workspace]\n' \
    "$1" "$2" "$3" >"$work/$1/Cargo.toml"
  printf '%s\n' "$4" >"$work/$1/src/main.rs"
}
patch="[patch.crates-io]
handle-id = { path = \"$work/registry/handle-id-0.1.0\" }
handle-id-core = { path = \"$work/registry/handle-id-core-0.1.0\" }
handle-macros = { path = \"$work/registry/handle-macros-0.1.0\" }"
new_crate user-hdl 'handle-id = "0.1.0"' "$patch" \
  'const H: handle_id::HandleRef<'"'"'static> = handle_id::hdl!("10.1045/april2006-paskin");
fn main() { println!("{}", H.prefix()); }'
new_crate user-uuid 'uuid = { version = "=1.11.0", features = ["macro-diagnostics"] }' "" \
  'const U: uuid::Uuid = uuid::uuid!("67e55044-10b1-426f-9247-bb680e5fe0c8");
fn main() { println!("{}", U); }'
new_crate user-uuid-now 'uuid = "1"' "" \
  'const U: uuid::Uuid = uuid::uuid!("67e55044-10b1-426f-9247-bb680e5fe0c8");
fn main() { println!("{}", U); }'
literals=$(for i in $(seq 1 100); do printf 'const H%d: handle_id::HandleRef<'"'"'static> = handle_id::hdl!("10.%d/item-%d");\n' "$i" "$((1000 + i))" "$i"; done)
new_crate user-hdl-100 'handle-id = "0.1.0"' "$patch" "#![allow(dead_code)]
$literals
fn main() { println!(\"{} {}\", H1.prefix(), H100.local_name()); }"

for crate in user-hdl user-uuid user-uuid-now user-hdl-100; do
  (cd "$work/$crate" && cargo fetch --quiet)
done

# Seconds of a clean debug build of $1.
clean_build() {
  local dir=$work/$1
  rm -rf "$dir/target"
  local start end
  start=$(date +%s.%N)
  (cd "$dir" && cargo build --quiet --offline)
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

hdl_times=() uuid_times=() now_times=()
for _ in $(seq 1 "$runs"); do
  hdl_times+=("$(clean_build user-hdl)")
  uuid_times+=("$(clean_build user-uuid)")
  now_times+=("$(clean_build user-uuid-now)")
done
hdl=$(printf '%s\n' "${hdl_times[@]}" | median)
uuid=$(printf '%s\n' "${uuid_times[@]}" | median)
now=$(printf '%s\n' "${now_times[@]}" | median)
now_version=$(cd "$work/user-uuid-now" && cargo tree --offline --prefix none --format '{p}' | grep '^uuid ' | cut -d' ' -f2)

# Rebuild after editing one of 100 literals.
clean_build user-hdl-100 >/dev/null
rebuild_times=()
for i in $(seq 1 "$runs"); do
  sed -i "s|item-1\"|item-1-$i\"|; s|item-1-[0-9]*\"|item-1-$i\"|" "$work/user-hdl-100/src/main.rs"
  start=$(date +%s.%N)
  (cd "$work/user-hdl-100" && cargo build --quiet --offline)
  end=$(date +%s.%N)
  rebuild_times+=("$(echo "$end - $start" | bc)")
done
rebuild=$(printf '%s\n' "${rebuild_times[@]}" | median)

echo "clean debug build, one literal (median of $runs):"
printf '  handle-id hdl!          %6.2f s   (runs: %s)\n' "$hdl" "${hdl_times[*]}"
printf '  uuid 1.11 uuid! (proc)  %6.2f s   (runs: %s)\n' "$uuid" "${uuid_times[*]}"
printf '  ratio                   %6.2fx\n' "$(echo "$hdl / $uuid" | bc -l)"
printf '  uuid %s uuid! (const fn) %6.2f s   (runs: %s)\n' "$now_version" "$now" "${now_times[*]}"
printf '  ratio                   %6.2fx\n' "$(echo "$hdl / $now" | bc -l)"
printf 'rebuild after editing one of 100 literals: %.2f s (runs: %s)\n' "$rebuild" "${rebuild_times[*]}"
echo "the user's dependency tree:"
(cd "$work/user-hdl" && cargo tree --offline --prefix none --format '{p}' | sed 's/ (.*//' | sort -u | sed 's/^/  /')
if (cd "$work/user-hdl" && cargo tree --offline --prefix none --format '{p}') |
  grep -qE '^(pest|pest_meta|pest_generator|stacker|psm|cc|object|handle-id-codegen) '; then
  echo "a generator crate is in the user's build" >&2
  exit 1
fi
