#!/usr/bin/env bash
# Fuzzes a running `mixrender serve` against its contract, Sources/MixServer/openapi.yaml, with schemathesis
# (from .venv-serve: scripts/install-serve-tools.sh installs it). Every operation, examples, coverage and fuzzed
# cases, valid and invalid, with the bearer token, and every check schemathesis has: it fails on any 5xx, on any
# response whose status, content type, headers or body the document does not allow, on a request the document
# forbids that is accepted, on a method a path does not take that is not answered 405 with `Allow`, on a call
# without the token that is not refused. Three checks are fitted to the document: a request the document allows may
# still be refused with 422 where it says so (a preset that is JSON but not a preset, a sound whose bytes do not
# hash to its name), and a waveform with 400 (width and pointsPerSecond together, or a zoomed image). use_after_free is on: after DELETE /v1/renders/{id}, that token gets 404 for the render.
# MIXRENDER_FUZZ_CHECKS chooses other checks
# (comma-separated). It first submits two small renders and uploads one sound (so it needs
# a server that renders), and fuzzes their ids beside random ones. Bounded: at most SECONDS of testing, at most MIXRENDER_FUZZ_EXAMPLES
# cases per operation and round (default 50), each request at most 30 s, and the whole run killed at SECONDS + 120.
#
#   scripts/schemathesis.sh http://127.0.0.1:8080 TOKEN 120
#
# MIXRENDER_FUZZ_SEED repeats a run (schemathesis prints the seed it used). The report (JUnit XML) goes to
# MIXRENDER_FUZZ_REPORT_DIR (default: a temporary folder, printed at the end).
set -euo pipefail
if [[ $# -ne 3 ]]; then
    echo "usage: scripts/schemathesis.sh URL TOKEN SECONDS   (e.g. http://127.0.0.1:8080 \"\$TOKEN\" 120)" >&2
    exit 2
fi
url="${1%/}" token="$2" seconds="$3"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "schemathesis.sh: SECONDS must be a whole number above 0, not '$seconds'" >&2
    exit 2
fi
cd "$(dirname "$0")/.."
project="$PWD"
venv="${MIXRENDER_SERVE_VENV:-$PWD/.venv-serve}"
if [[ ! -x "$venv/bin/schemathesis" ]]; then
    echo "schemathesis.sh: no schemathesis in $venv: run scripts/install-serve-tools.sh first" >&2
    exit 2
fi
schema=Sources/MixServer/openapi.yaml
examples="${MIXRENDER_FUZZ_EXAMPLES:-50}"
report="${MIXRENDER_FUZZ_REPORT_DIR:-$(mktemp -d -t mixrender-schemathesis-XXXXXX)}"
mkdir -p "$report"
seed=()
[[ -n "${MIXRENDER_FUZZ_SEED:-}" ]] && seed=(--seed "$MIXRENDER_FUZZ_SEED")

if ! "$venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)' "$url/healthz" 2>/dev/null; then
    echo "schemathesis.sh: $url/healthz does not answer: is mixrender serve running there?" >&2
    exit 2
fi

# Real data for the paths that name one: two renders that succeeded (5-second procedural presets; one only for
# DELETE, which deletes it for the token) and an uploaded sound, offered as the `id` and `sha256` path parameters
# half the time (random ones, mostly 404, the other half), so the fuzzing reaches a render's audio (with Range),
# waveform, timeline, report and events, and a sound.
config="$report/schemathesis.toml"
"$venv/bin/python" - "$url" "$token" "$config" <<'PYTHON'
import hashlib, io, json, math, struct, sys, time, urllib.error, urllib.request, wave

url, token, config = sys.argv[1:4]
auth = {"Authorization": f"Bearer {token}"}


def call(method, path, body=None, content_type="application/json"):
    headers = dict(auth)
    if body is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        sys.exit(f"schemathesis.sh: {method} {path} answered {error.code}: {error.read()[:300]!r}")


def rendered(seed):
    """The id of a 5-second procedural render, submitted and waited for (at most 120 s)."""
    request = {"preset": {"name": "schemathesis seed", "duration": "5s", "tracks": [{"rain": {"seed": seed}}]},
               "format": "ogg"}
    status, render = call("POST", "/v1/renders", json.dumps(request).encode())
    deadline = time.monotonic() + 120
    while render["state"] in ("queued", "rendering"):
        if time.monotonic() > deadline:
            sys.exit(f"schemathesis.sh: the seed render {render['id']} did not finish within 120 s")
        time.sleep(0.5)
        status, render = call("GET", f"/v1/renders/{render['id']}")
    if render["state"] != "succeeded":
        sys.exit(f"schemathesis.sh: the seed render {render['id']} ended {render['state']}: {render.get('error')}")
    return render["id"]


# One render for every operation, and another for DELETE (which deletes it: kept apart so the others stay).
kept, cancelled = rendered(1), rendered(2)

samples = io.BytesIO()
with wave.open(samples, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(48000)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / 48000))) for n in range(12000)))
sound = samples.getvalue()
sha = hashlib.sha256(sound).hexdigest()
call("PUT", f"/v1/sounds/{sha}", sound, "application/octet-stream")

with open(config, "w") as f:
    f.write(f"""[dictionaries.renders]
values = ["{kept}"]

[dictionaries.cancellable]
values = ["{cancelled}"]

[dictionaries.sounds]
values = ["{sha}"]

[parameters]
"path.id" = {{ dictionary = "renders", probability = 0.5 }}
"path.sha256" = {{ dictionary = "sounds", probability = 0.5 }}

[[operations]]
include-operation-id = "cancelRender"
parameters = {{ "path.id" = {{ dictionary = "cancellable", probability = 0.5 }} }}

# A preset or a template is any JSON object to the document, and a sound any bytes: the server's 422 says which are not.
[[operations]]
include-operation-id-regex = "^(createRender|uploadSound|publishTemplate)$"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]

# A waveform zooms by width or by pointsPerSecond, not both, and only as JSON: the document cannot say "one of" for
# query parameters, so a request it allows may be refused with 400, which names the parameter.
[[operations]]
include-operation-id = "getRenderWaveform"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "5xx"]
""")
print(f"schemathesis.sh: renders {kept} and {cancelled} (succeeded), sound {sha}")
PYTHON

# Run from the report folder: Hypothesis and schemathesis keep caches in the current folder, not in the project.
status=0
(cd "$report" && exec timeout --kill-after=10 "$((seconds + 120))" \
    "$venv/bin/schemathesis" --config-file "$config" run "$project/$schema" \
        --url "$url" \
        --header "Authorization: Bearer $token" \
        --checks "${MIXRENDER_FUZZ_CHECKS:-all}" \
        --phases examples,coverage,fuzzing,stateful \
        --mode all \
        --max-time "$seconds" \
        --max-examples "$examples" \
        --request-timeout 30 \
        --workers 1 \
        --generation-database none \
        --suppress-health-check too_slow,filter_too_much \
        --report junit --report-dir "$report" \
        --no-color \
        "${seed[@]}") || status=$?
echo "schemathesis.sh: report in $report"
if [[ $status -eq 124 || $status -eq 137 ]]; then
    echo "schemathesis.sh: the run did not end within $((seconds + 120)) s and was stopped" >&2
fi
exit "$status"
