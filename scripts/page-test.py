#!/usr/bin/env python3
"""Tests the page of `mixrender serve` (GET /) in a real headless Chromium, as a person would use it.

Starts no server: give it a running one. It launches Debian's `chromium` headless, drives it over the DevTools
protocol (websocket-client, from .venv-serve: scripts/install-serve-tools.sh), and:

  1. loads the page, types the token, and waits for the server to call the page's own preset valid;
  2. types a preset with a deliberate error and checks the page names its JSON path, and that "Select it in the
     preset" selects the value at fault;
  3. types a good preset (procedural, no sound files, 20 s, two chapters), picks the format, presses Render;
  4. waits (bounded) for the waveform to be drawn, then checks the player holds the audio and decodes it to the
     render's length, the download link names a file of that format, the chapters are listed and one seeks;
  5. takes a screenshot of the whole page.

    .venv-serve/bin/python scripts/page-test.py --url http://127.0.0.1:8080 --token TOKEN --screenshot page.png

Exits 0 when all of it holds; otherwise prints `page-test: FAIL: <what>` (with the page's status and any
script errors) and exits 1. Chromium runs with --no-sandbox, since CI runs as root.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import websocket  # websocket-client
except ImportError:
    sys.exit("page-test: websocket-client is missing: run scripts/install-serve-tools.sh and use .venv-serve/bin/python")

# A preset that renders in about a second without sound files, with two chapters.
GOOD_PRESET = {
    "name": "Page test: rain and a bell",
    "duration": "20s",
    "master": {"fadeIn": "1s", "fadeOut": "3s"},
    "chapters": [{"at": 0, "name": "Rain"}, {"at": "10s", "name": "Bell"}],
    "tracks": [
        {"name": "rain", "rain": {"intensity": 0.6, "seed": 9}, "gainDb": -4},
        {"name": "bell", "chime": {"sound": "bell"}, "start": "10s", "gainDb": -2},
    ],
}
# The same with the bell's gain as a string: the server must name preset.tracks[1].gainDb.
BAD_PRESET_TEXT = json.dumps(GOOD_PRESET, indent=2).replace('"gainDb": -2', '"gainDb": "loud"')
BAD_PATH = "tracks[1].gainDb"
BAD_VALUE = '"loud"'
EXPECTED_SECONDS = 20.0


class Failure(Exception):
    pass


class DevTools:
    """A minimal Chrome DevTools protocol client over one page's websocket: commands and the events seen."""

    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def call(self, method, timeout=30, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                message = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                raise Failure(f"Chromium did not answer {method} within {timeout} s")
            if message.get("id") == my_id:
                if "error" in message:
                    raise Failure(f"{method}: {message['error'].get('message')}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method, timeout):
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(i)
            if time.monotonic() > deadline:
                raise Failure(f"no {method} within {timeout} s")
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                message = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                continue
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression, timeout=30):
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        result = self.call("Runtime.evaluate", timeout=timeout, expression=expression, awaitPromise=True,
                           returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise Failure(f"the page's script threw while testing ({expression[:60]}...): {text}")
        return result["result"].get("value")

    def script_errors(self):
        errors = []
        for event in self.events:
            if event["method"] == "Runtime.exceptionThrown":
                details = event["params"]["exceptionDetails"]
                errors.append(details.get("exception", {}).get("description") or details.get("text"))
            elif event["method"] == "Runtime.consoleAPICalled" and event["params"]["type"] == "error":
                errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in event["params"]["args"]))
        return errors

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass


def launch_chromium(profile):
    chromium = shutil.which("chromium")
    if not chromium:
        raise Failure("chromium is not installed (apt-get install -y chromium)")
    process = subprocess.Popen(
        [chromium, "--headless=new", "--remote-debugging-port=0", f"--user-data-dir={profile}", "--no-sandbox",
         "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
         "--disable-dev-shm-usage",  # a container's /dev/shm is often 64 MB: Chromium's shared memory in /tmp instead
         "--autoplay-policy=no-user-gesture-required", "--window-size=1280,1600", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Failure(f"chromium exited at start ({process.returncode}): {process.stderr.read().decode()[-800:]}")
        try:
            with open(port_file) as f:
                port = int(f.readline().strip())
            return process, port
        except (FileNotFoundError, ValueError):
            time.sleep(0.1)
    raise Failure("chromium did not open its DevTools port within 60 s")


def page_target(port):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            for target in json.load(response):
                if target.get("type") == "page" and target.get("webSocketDebuggerUrl"):
                    return target["webSocketDebuggerUrl"]
        time.sleep(0.2)
    raise Failure("chromium shows no page to drive")


def wait_for(cdp, expression, timeout, what):
    """Waits until `expression` is truthy in the page; fails early when the page reports a failed render."""
    deadline = time.monotonic() + timeout
    while True:
        value = cdp.evaluate(expression)
        if value:
            return value
        state = cdp.evaluate("document.getElementById('status')?.dataset.state")
        if state in ("failed", "error", "cancelled"):
            raise Failure(f"{what}: the page says the render {state}: {page_words(cdp)}")
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not within {timeout} s; the page says: {page_words(cdp)}")
        time.sleep(0.1)


def page_words(cdp):
    """What the page shows a person about the preset and the render, to explain a failure."""
    words = cdp.evaluate("['validation', 'error', 'status'].map(id => { const e = document.getElementById(id);"
                         " return e && !e.hidden && e.innerText.trim() ? `#${id} ${JSON.stringify(e.innerText.trim().replace(/\\s+/g, ' '))}` : null; })"
                         ".filter(Boolean).join('; ')")
    return words or "nothing"


def type_into(cdp, selector, text):
    """Focuses the field, selects what it holds and types `text` over it, as a person pasting would."""
    found = cdp.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return false;"
                         " e.focus(); e.select(); return true; })()")
    if not found:
        raise Failure(f"the page has no {selector}")
    cdp.call("Input.insertText", text=text)


def click(cdp, selector):
    """Clicks the middle of the element with the mouse."""
    box = cdp.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                       " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                       " return {x: r.x + r.width / 2, y: r.y + r.height / 2, w: r.width}; })()")
    if not box or box["w"] == 0:
        raise Failure(f"{selector} is missing or not visible")
    for kind in ("mousePressed", "mouseReleased"):
        cdp.call("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)


def run(options):
    base = options.url.rstrip("/") + "/"
    profile = tempfile.mkdtemp(prefix="mixrender-page-test-")
    process = None
    cdp = None
    try:
        process, port = launch_chromium(profile)
        cdp = DevTools(page_target(port))
        for domain in ("Page", "Runtime"):
            cdp.call(f"{domain}.enable")
        cdp.call("Emulation.setDeviceMetricsOverride", width=1200, height=1400, deviceScaleFactor=1, mobile=False)

        # 1. The page loads; the token is typed once and kept.
        navigation = cdp.call("Page.navigate", url=base)
        if navigation.get("errorText"):
            raise Failure(f"the page did not load from {base}: {navigation['errorText']}")
        cdp.wait_event("Page.loadEventFired", 30)
        missing = cdp.evaluate("['preset','token','render','status','waveform','chapters','player','download','error','format']"
                               ".filter(id => !document.getElementById(id))")
        if missing:
            raise Failure(f"the page lacks the elements #{', #'.join(missing)}")
        type_into(cdp, "#token", options.token)
        wait_for(cdp, "localStorage.getItem('mixrender.token') === " + json.dumps(options.token), 5,
                 "the token kept in localStorage")
        wait_for(cdp, "document.getElementById('validation').textContent.startsWith('Valid')", 30,
                 "the server calling the page's own default preset valid")

        # 2. A preset with an error: the page names its JSON path, and selects the value at fault.
        type_into(cdp, "#preset", BAD_PRESET_TEXT)
        wait_for(cdp, "!document.getElementById('error').hidden", 30, "the error of a preset with a wrong gainDb")
        error_text = cdp.evaluate("document.getElementById('error').innerText")
        if BAD_PATH not in error_text:
            raise Failure(f"the error does not name the JSON path {BAD_PATH}: {error_text!r}")
        if cdp.evaluate("document.getElementById('preset').getAttribute('aria-invalid')") != "true":
            raise Failure("the preset field is not marked aria-invalid while it has an error")
        click(cdp, "#error-show")
        selected = cdp.evaluate("(() => { const t = document.getElementById('preset');"
                                " return t.value.slice(t.selectionStart, t.selectionEnd); })()")
        if selected != BAD_VALUE:
            raise Failure(f"'Select it in the preset' selected {selected!r}, not the value at fault {BAD_VALUE}")

        # 3. Fixed, it is valid again; the format is picked; Render.
        type_into(cdp, "#preset", json.dumps(GOOD_PRESET, indent=2))
        wait_for(cdp, "document.getElementById('error').hidden && "
                      "document.getElementById('validation').textContent.startsWith('Valid')", 30,
                 "the fixed preset being called valid")
        if not cdp.evaluate(f"(() => {{ const s = document.getElementById('format');"
                            f" if (![...s.options].some(o => o.value === {json.dumps(options.format)})) return false;"
                            f" s.value = {json.dumps(options.format)}; s.dispatchEvent(new Event('change'));"
                            " return true; })()"):
            raise Failure(f"the format list has no {options.format}")
        click(cdp, "#render")
        started = time.monotonic()

        # 4. The result: waveform drawn, audio playable, download offered, chapters listed and seekable.
        wait_for(cdp, "document.getElementById('waveform').dataset.ready === 'true'", options.timeout,
                 "the waveform being drawn")
        seconds = time.monotonic() - started
        drawn = cdp.evaluate("(() => { const c = document.getElementById('waveform');"
                             " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                             " const set = new Set(); for (let i = 0; i < d.length; i += 4 * 97) set.add(d[i] << 16 | d[i+1] << 8 | d[i+2]);"
                             " return set.size; })()")
        if drawn < 2:
            raise Failure("the waveform canvas is marked ready but holds one colour only")
        wait_for(cdp, "document.getElementById('player').src.startsWith('blob:') &&"
                      " !document.getElementById('download').hidden", 30, "the audio in the player and the download link")
        download = cdp.evaluate("(() => { const a = document.getElementById('download');"
                                " return {href: a.href, name: a.getAttribute('download')}; })()")
        if not download["href"].startswith("blob:") or not download["name"].endswith("." + options.format):
            raise Failure(f"the download link is not a .{options.format} file of the audio: {download}")
        duration = wait_for(cdp, "(() => { const p = document.getElementById('player');"
                                 " return p.readyState >= 1 && p.duration > 0 ? p.duration : 0; })()", 30,
                            f"the player decoding the {options.format} file (its length)")
        if abs(duration - EXPECTED_SECONDS) > 0.5:
            raise Failure(f"the player says the audio lasts {duration:.2f} s, not {EXPECTED_SECONDS} s")
        chapters = cdp.evaluate("[...document.querySelectorAll('#chapters button')].map(b => b.textContent)")
        if len(chapters) != 2 or "Bell" not in chapters[1]:
            raise Failure(f"the chapters listed are {chapters}, not Rain and Bell")
        click(cdp, "#chapters li:nth-child(2) button")
        position = wait_for(cdp, "(() => { const t = document.getElementById('player').currentTime;"
                                 " return t >= 9.9 ? t : 0; })()", 10, "the Bell chapter seeking the player to 0:10")
        cdp.evaluate("document.getElementById('player').pause()")

        # 5. The picture.
        shot = cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        with open(options.screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

        errors = cdp.script_errors()
        if errors:
            raise Failure("the page's script reported errors: " + " | ".join(errors))
        print(f"page-test: ok: error named {BAD_PATH}; rendered {options.format} and drew its waveform in {seconds:.1f} s; "
              f"player {duration:.2f} s, seeks to chapter 2 ({position:.1f} s); download {download['name']}; "
              f"screenshot {options.screenshot}")
    finally:
        if cdp:
            cdp.close()
        if process and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--token", required=True, help="a bearer token the server accepts")
    parser.add_argument("--screenshot", required=True, help="where to write the page's screenshot (PNG)")
    parser.add_argument("--format", default="m4a", help="the format to render (default m4a)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for the render (default 120)")
    options = parser.parse_args()
    try:
        run(options)
    except Failure as failure:
        print(f"page-test: FAIL: {failure}", file=sys.stderr)
        sys.exit(1)
    except (OSError, websocket.WebSocketException) as error:
        print(f"page-test: FAIL: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
