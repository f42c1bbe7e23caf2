#!/usr/bin/env bash
# The Python package's tests, as a user gets it: a fresh virtual environment, maturin,
# pytest and pyarrow from PyPI, `pip install ./python` (maturin as the PEP 517 build
# backend, the one abi3 wheel), then pytest on python/tests and the README's examples,
# against the installed wheel. The wheel is built with cargo's dev profile
# (HANDLE_ID_WHEEL_PROFILE, passed to maturin as `--profile`), on what `cargo test` has
# built in target/debug, so that the library's debug assertions (extraction agreeing with
# cleaning, among others) are checked on every test. From a clean checkout it costs about
# what a release build costs (whose compile takes two minutes more, and the tests a minute
# and a half less); HANDLE_ID_WHEEL_PROFILE=release tests the build a user's `pip install`
# makes. The tests hold the package to the `hdl`
# command on the same inputs: $HDL, or target/debug/hdl (built here when missing).
#
# Polars is installed for the handle_id.polars tests, the version whose plugin interface the
# module speaks (src/plugin.rs), so that its compiled expressions are what is tested; pyspark (a large download) only
# (and pandas, which its Arrow path needs) where Java is here for Spark's local mode, and not with HANDLE_ID_SPARK=0;
# mypy, whose stubtest holds the type stubs to the built module.
#
# It says plainly when it skips: no python3 (3.9 or later), no packages from PyPI, and
# the Spark test without Java or pyspark.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1 ||
    ! "$python" -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null; then
    echo "python/run-tests.sh: SKIPPED: no python3 of version 3.9 or later ($python)"
    exit 0
fi
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "python/run-tests.sh: SKIPPED: $python has no venv/ensurepip module"
    exit 0
fi

venv=$(mktemp -d "${TMPDIR:-/tmp}/handle-id-python.XXXXXX")
trap 'rm -rf "$venv"' EXIT
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input)

echo "python/run-tests.sh: installing pytest, pyarrow, polars, mypy and maturin from PyPI"
if ! "${pip[@]}" install --quiet pytest pyarrow "polars==2.1.0" mypy maturin >"$venv/pip.log" 2>&1; then
    tail -n 5 "$venv/pip.log"
    echo "python/run-tests.sh: SKIPPED: could not install pytest, pyarrow, polars, mypy and maturin from PyPI (no network?)"
    exit 0
fi
if [[ ${HANDLE_ID_SPARK:-1} = 0 ]]; then
    echo "python/run-tests.sh: HANDLE_ID_SPARK=0: the Spark test skips"
elif ! command -v java >/dev/null 2>&1; then
    echo "python/run-tests.sh: no Java: the Spark test skips"
elif ! "${pip[@]}" install --quiet pyspark "pandas<3" >"$venv/pip.log" 2>&1; then
    tail -n 3 "$venv/pip.log"
    echo "python/run-tests.sh: could not install pyspark: the Spark test skips"
fi

if [[ -z "${HDL:-}" ]]; then
    HDL=target/debug/hdl
    if [[ ! -x $HDL ]]; then
        echo "python/run-tests.sh: building the hdl command the tests compare with"
        cargo build --quiet -p handle-cli
    fi
fi
[[ $HDL = /* ]] || HDL=$PWD/$HDL
export HDL

profile=${HANDLE_ID_WHEEL_PROFILE:-dev}
echo "python/run-tests.sh: pip install ./python (the wheel built with cargo's $profile profile)"
built=$(date +%s)
MATURIN_PEP517_ARGS="--profile $profile ${MATURIN_PEP517_ARGS:-}" "${pip[@]}" install ./python
echo "python/run-tests.sh: wheel built and installed in $(($(date +%s) - built)) s"

# From the repository's root, so that `import handle_id` is the installed wheel, not
# python/handle_id/ (which has no native module).
"$venv/bin/python" -m pytest -p no:cacheprovider -q -rs python/tests \
    --doctest-glob='README.md' python/README.md --doctest-modules --pyargs handle_id
echo "python/run-tests.sh: done in $(($(date +%s) - start)) s"
