#!/usr/bin/env bash
# Checks `mixrender serve` as a person and a fuzzer meet it (docs/serve.md): starts the server on a free loopback
# port with a fresh state folder (two renders at once), runs the page test in headless Chromium
# (scripts/page-test.py: token, an error named by its JSON path, a render, waveform, player, chapters, download;
# screenshot in test-output/serve-page.png) and schemathesis against the OpenAPI document (scripts/schemathesis.sh,
# every check, SERVE_FUZZ_SECONDS of testing, default 120; report in test-output/schemathesis/), then stops the
# server with SIGTERM and checks that it exits 0 within 30 s. Installs the tools (.venv-serve, Chromium) first if
# needed (scripts/install-serve-tools.sh).
#
#   scripts/serve-check.sh [MIXRENDER_BINARY]     (default .build/debug/mixrender, from scripts/test.sh's build)
#
# Exits 0 when all of it holds; otherwise the last line is `serve-check: FAIL: <what>`, and the server's log
# (without its token) is kept in test-output/serve-server.log.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/debug/mixrender}"
seconds="${SERVE_FUZZ_SECONDS:-120}"
fail() { echo "serve-check: FAIL: $*" >&2; exit 1; }
[[ -x "$binary" ]] || fail "no mixrender binary at $binary: build it (MIXRENDER_OPTIMIZE_OWN_MODULES=1 swift build) or name it"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || fail "SERVE_FUZZ_SECONDS must be a whole number above 0, not '$seconds'"
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
started=$SECONDS
scripts/install-serve-tools.sh || fail "scripts/install-serve-tools.sh failed"
python="${MIXRENDER_SERVE_VENV:-$PWD/.venv-serve}/bin/python"
mkdir -p test-output

work="$(mktemp -d -t mixrender-serve-check-XXXXXX)"
log="$work/server.log"
server=""
passed=""
# Whatever happens: the server stopped (it is asked, then made), its log kept on a failure (without the token),
# the folder gone.
cleanup() {
    if [[ -n "$server" ]] && kill -0 "$server" 2>/dev/null; then
        kill -TERM "$server" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server" 2>/dev/null || true
    fi
    rm -f test-output/serve-server.log
    if [[ -z "$passed" && -f "$log" ]]; then sed '/^token: /d' "$log" > test-output/serve-server.log; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$binary" serve --host 127.0.0.1 --port 0 --state "$work/state" --jobs 2 > "$log" 2>&1 &
server=$!
url="" token=""
for _ in $(seq 600); do
    url="$(sed -n 's/^listening on \(http:\/\/[^ ]*\)$/\1/p' "$log" | head -n 1)"
    [[ -n "$url" ]] && break
    kill -0 "$server" 2>/dev/null || fail "mixrender serve exited at start: $(tail -n 1 "$log")"
    sleep 0.1
done
[[ -n "$url" ]] || fail "mixrender serve did not say where it listens within 60 s: $(tail -n 1 "$log")"
token="$(sed -n 's/^token: \([^ ]*\)$/\1/p' "$log" | head -n 1)"
[[ -n "$token" ]] || fail "mixrender serve printed no token on its first run in a fresh state folder"
echo "serve-check: mixrender serve at $url (state in a temporary folder; $((SECONDS - started)) s to here)"

failed=()
step=$SECONDS
if "$python" scripts/page-test.py --url "$url" --token "$token" --screenshot test-output/serve-page.png; then
    echo "serve-check: page test passed in $((SECONDS - step)) s"
else
    failed+=("the page test (page-test: FAIL above)")
fi

step=$SECONDS
rm -rf test-output/schemathesis
if MIXRENDER_FUZZ_REPORT_DIR="$PWD/test-output/schemathesis" scripts/schemathesis.sh "$url" "$token" "$seconds"; then
    echo "serve-check: schemathesis passed in $((SECONDS - step)) s"
else
    failed+=("schemathesis (failures above; report in test-output/schemathesis/)")
fi

# A graceful stop: SIGTERM, and exit status 0 within 30 s.
step=$SECONDS
kill -TERM "$server"
for _ in $(seq 300); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$server" 2>/dev/null; then
    failed+=("mixrender serve did not exit within 30 s of SIGTERM")
else
    status=0
    wait "$server" || status=$?
    server=""
    if [[ $status -eq 0 ]]; then
        echo "serve-check: the server stopped on SIGTERM in $((SECONDS - step)) s, exit status 0"
    else
        failed+=("mixrender serve exited $status on SIGTERM, not 0: $(tail -n 1 "$log")")
    fi
fi

if [[ ${#failed[@]} -gt 0 ]]; then
    joined="$(printf '%s; ' "${failed[@]}")"
    fail "${joined%; }"
fi
passed=1
echo "serve-check: ok in $((SECONDS - started)) s (page test, schemathesis ${seconds} s, graceful stop)"
