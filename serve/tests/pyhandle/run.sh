#!/usr/bin/env bash
# PYHANDLE 1.5.0's own integration tests (read and write) against `hdl serve`, as a user of
# that client would run them (SPEC W1–W8): pyhandle and its test tools from PyPI into a
# fresh virtual environment, the tests from its sdist with the one fix they need
# (`PIDClientCredentials(client="rest", …)`: 1.5.0 made `client` required and its tests
# were not updated), a server on a loopback port holding the prefix, the test user and the
# handle the read tests read, then pytest on both files. Prints each test's outcome and
# the counts; exits non-zero only when a test that can pass offline fails.
#
# Tests that cannot pass here, listed with the reason and not counted as failures:
# - test_global_resolve: resolves through the global proxy (hdl.handle.net).
# - test_instantiate_with_credentials_config(_override): they ask a bogus REST path on the
#   server given and expect the error the global proxy gives for an unknown prefix; a
#   server that holds only its own prefixes answers 404 with a page, which the client
#   takes for JSON.
# - test_register_handle: the client refuses its own `additional_URLs` argument
#   (NotImplementedError) before it sends anything.
# - test_generate_and_register_handle: the client sends a value whose `data` is a JSON
#   array, which the reference's reader refuses as we do (400, code 4).
# - test_delete_handle_inexistent: expects None where the client raises
#   HandleNotFoundException on the reference's answer (404, code 100), which we give.
#
# It says plainly when it skips (exit 0): no python3 3.8+, no venv, or no PyPI.
# Usage: bash serve/tests/pyhandle/run.sh [path/to/hdl]
set -euo pipefail
cd "$(dirname "$0")/../../.."

python=${PYTHON:-python3}
say() { echo "serve/tests/pyhandle/run.sh: $*"; }
if ! command -v "$python" >/dev/null 2>&1 ||
    ! "$python" -c 'import sys; assert sys.version_info >= (3, 8)' 2>/dev/null; then
    say "SKIPPED: no python3 of version 3.8 or later ($python)"
    exit 0
fi
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    say "SKIPPED: $python has no venv/ensurepip module"
    exit 0
fi

hdl=${1:-${HDL:-target/debug/hdl}}
if [[ ! -x $hdl ]]; then
    say "building the hdl command"
    cargo build --quiet -p handle-cli
fi
[[ $hdl = /* ]] || hdl=$PWD/$hdl

work=$(mktemp -d "${TMPDIR:-/tmp}/hdl-pyhandle.XXXXXX")
server=
cleanup() {
    if [[ -n $server ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    [[ -n ${KEEP:-} ]] && cp -r "$work" "$KEEP"
    rm -rf "$work"
}
trap cleanup EXIT
"$python" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check --no-input)
say "installing pyhandle 1.5.0, pytest and mock from PyPI"
if ! "${pip[@]}" install --quiet pyhandle==1.5.0 pytest mock >"$work/pip.log" 2>&1 ||
    ! "${pip[@]}" download --quiet --no-deps --no-binary :all: pyhandle==1.5.0 -d "$work/sdist" >>"$work/pip.log" 2>&1; then
    tail -n 5 "$work/pip.log"
    say "SKIPPED: could not install pyhandle 1.5.0 from PyPI (no network?)"
    exit 0
fi
tar xzf "$work/sdist/pyhandle-1.5.0.tar.gz" -C "$work"
src=$work/pyhandle-1.5.0
tests=$src/pyhandle/tests/testcases
# The one fix: `client` is required since 1.5.0.
sed -i 's/PIDClientCredentials(/PIDClientCredentials(client="rest", /' "$tests/handleclient_read_integration_test.py"

port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
prefix=21.T14999
user_handle=$prefix/B2HANDLE_INTEGRATION_TESTS
password=pyhandle-integration-key
# The prefix (its admin may create handles under it), the user (index 300: its secret
# key, not public), and the handle the read tests read, as their own set-up would make
# it, values in index order as the reference answers them.
admin="{\"index\":100,\"type\":\"HS_ADMIN\",\"data\":{\"format\":\"admin\",\"value\":{\"handle\":\"$user_handle\",\"index\":300,\"permissions\":\"111111111111\"}}}"
value() { echo "{\"index\":$1,\"type\":\"$2\",\"data\":{\"format\":\"string\",\"value\":\"$3\"}}"; }
cat >"$work/records.jsonl" <<RECORDS
{"responseCode":1,"handle":"0.NA/$prefix","values":[$admin]}
{"responseCode":1,"handle":"$user_handle","values":[$admin,{"index":300,"type":"HS_SECKEY","data":{"format":"string","value":"$password"},"permissions":"1100"}]}
{"responseCode":1,"handle":"$prefix/read-tests","values":[$(value 4 TEST4 val4),${admin/111111111111/011111110011},$(value 111 TEST1 val1),$(value 333 TEST3 val3),$(value 2222 TEST2 val2)]}
RECORDS
cat >"$src/pyhandle/tests/resources/testvalues_for_integration_tests_IGNORE.json" <<VALUES
{
    "user": "300:$user_handle",
    "password": "$password",
    "handle_server_url_read": "$url",
    "handle_server_url_write": "$url",
    "url_extension_REST_API": "/api/handles/",
    "handle_for_read_tests": "$prefix/read-tests",
    "handle_globally_resolvable": "$prefix/read-tests",
    "handle_to_be_created": "$prefix/created-by-tests",
    "handle_to_be_modified": "$prefix/modified-by-tests",
    "HTTPS_verify": false
}
VALUES

"$hdl" serve --store "$work/store.redb" --records "$work/records.jsonl" --bind "127.0.0.1:$port" 2>"$work/server.log" &
server=$!
for _ in $(seq 1 100); do
    if "$python" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then break; fi
    sleep 0.1
done

say "running PYHANDLE's read and write integration tests against hdl serve at $url"
set +e
(cd "$src" && "$work/venv/bin/python" -m pytest -q -rA -p no:cacheprovider \
    pyhandle/tests/testcases/handleclient_read_integration_test.py \
    pyhandle/tests/testcases/handleclient_write_integration_test.py) >"$work/pytest.log" 2>&1
set -e
outcomes() { grep -E "^($1) [^ ]*::" "$work/pytest.log"; }
outcomes 'PASSED|FAILED|ERROR' | sed 's/ - .*//; s/^\([A-Z]*\) .*::/\1 /' | sort
excused='test_global_resolve|test_instantiate_with_credentials_config|test_register_handle( |$)|test_generate_and_register_handle|test_delete_handle_inexistent'
passed=$(outcomes PASSED | grep -c . || true)
failed=$(outcomes 'FAILED|ERROR' | grep -cvE "$excused" || true)
cannot=$(outcomes 'FAILED|ERROR' | grep -cE "$excused" || true)
say "$passed passed, $failed failed, $cannot failed that cannot pass here (this script's comments say why)"
if [[ $failed -ne 0 ]]; then
    grep -E '^E ' "$work/pytest.log" | head -40
    say "the server's log:"
    tail -n 40 "$work/server.log"
    exit 1
fi
