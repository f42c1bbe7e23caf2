#!/usr/bin/env bash
# Records the reference proxy's answers to requests.txt on records.jsonl (answers.jsonl, beside this script), which
# `cargo test -p handle-serve --test parity` replays against hdl serve's app without Java.
#   serve/tests/parity/record.sh [REQUESTS RECORDS ANSWERS]
# Needs the reference proxy of ../shared/reference/cnri-proxy (relative to the project root; CNRI_PROXY names another
# place) and what its proxy_setup installs (Java 17, Jetty 9.4). Run it again after changing the records or requests.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
ref=${CNRI_PROXY:-$root/../shared/reference/cnri-proxy}
requests=${1:-$here/requests.txt}
records=${2:-$here/records.jsonl}
answers=${3:-$here/answers.jsonl}
if [ ! -f "$ref/reference-proxy.sh" ]; then
  echo "record.sh: no reference proxy at $ref (set CNRI_PROXY)" >&2
  exit 2
fi
# shellcheck source=/dev/null
source "$ref/reference-proxy.sh"
proxy_setup || exit 1
work=$(mktemp -d -t parity-record.XXXXXX)
trap 'proxy_stop; rm -rf "$work"' EXIT
proxy_start "$work/p" "$(freeport)" "$records" || { echo "record.sh: the reference proxy did not start" >&2; exit 1; }
python3 "$here/record.py" "$PROXY_URL" "$requests" > "$work/answers.jsonl"
mv "$work/answers.jsonl" "$answers"
echo "record.sh: $(wc -l < "$answers") answers of the reference proxy in $answers" >&2
