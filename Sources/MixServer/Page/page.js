// The page of `mixrender serve` (docs/serve.md): checks a preset as it is typed, renders it, follows the render,
// and shows, plays and offers the result. Plain script, no build step, no outside URLs: every call goes to the
// server that served the page, by URLs relative to it (so the page also works behind a proxy under a path).
"use strict";

/** A preset that renders in about a second with no sound files: procedural rain, a bell, two chapters. */
const DEFAULT_PRESET = `{
  "name": "Rain and a bell",
  "duration": "20s",
  "master": { "fadeIn": "2s", "fadeOut": "5s" },
  "chapters": [{ "at": 0, "name": "Rain" }, { "at": "10s", "name": "Bell" }],
  "tracks": [
    { "name": "rain", "rain": { "intensity": 0.5, "seed": 4 }, "gainDb": -4 },
    { "name": "bell", "chime": { "sound": "bell" }, "start": "10s", "gainDb": -2 }
  ]
}
`;
const TOKEN_KEY = "mixrender.token";
const VALIDATE_DELAY_MS = 400;
/** Larger results are loaded into the page only when asked (the page holds the whole file in memory). */
const AUTO_LOAD_BYTES = 256 * 1024 * 1024;
const FINAL_STATES = new Set(["succeeded", "failed", "cancelled"]);

const $ = (id) => document.getElementById(id);
const ui = {
  token: $("token"), preset: $("preset"), presetFile: $("preset-file"), format: $("format"),
  render: $("render"), cancel: $("cancel"), status: $("status"), progress: $("progress"), progressText: $("progress-text"),
  error: $("error"), errorPath: $("error-path"), errorLine: $("error-line"), errorReason: $("error-reason"),
  errorShow: $("error-show"), validation: $("validation"), warnings: $("warnings"),
  result: $("result"), waveform: $("waveform"), player: $("player"), chapters: $("chapters"),
  download: $("download"), resultInfo: $("result-info"), loadAudioRow: $("load-audio-row"), loadAudio: $("load-audio"),
};

// ---------------------------------------------------------------------------------------------------------------
// JSON with positions: the preset is read here only to know where each JSON path is in the text (so an error can
// point at it) and to catch a syntax error before asking the server; the server's reading is the one that counts.

/** Reads `text` as strict JSON; returns the start and end offset of every value by its JSON path
 *  (`tracks[0].gainDb`, "" for the document), or throws a SyntaxError naming the line and column. */
function locateJSON(text) {
  const spans = new Map();
  let i = 0;
  const fail = (what) => {
    const { line, column } = lineColumn(text, i);
    const error = new SyntaxError(`${what} at line ${line}, column ${column}`);
    error.offset = i;
    throw error;
  };
  const space = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
  const string = () => {
    if (text[i] !== '"') fail("expected a string");
    const start = i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail("invalid \\u escape");
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "")) fail("invalid escape");
      } else if (text.charCodeAt(i) < 0x20) fail("control character in a string");
      i++;
    }
    if (i >= text.length) { i = start; fail("string not closed"); }
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = (path, depth) => {
    if (depth > 512) fail("nested deeper than 512");
    space();
    const start = i;
    const c = text[i];
    if (c === "{") {
      i++; space();
      if (text[i] === "}") i++;
      else for (;;) {
        space();
        const key = string();
        space();
        if (text[i] !== ":") fail("expected ':' after a key");
        i++;
        value(path === "" ? key : `${path}.${key}`, depth + 1);
        space();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") { i++; break; }
        fail("expected ',' or '}'");
      }
    } else if (c === "[") {
      i++; space();
      if (text[i] === "]") i++;
      else for (let n = 0; ; n++) {
        value(`${path}[${n}]`, depth + 1);
        space();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "]") { i++; break; }
        fail("expected ',' or ']'");
      }
    } else if (c === '"') {
      string();
    } else {
      const m = /^(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
      if (!m) fail(i >= text.length ? "unexpected end of the text" : "expected a value");
      i += m[0].length;
    }
    spans.set(path, { start, end: i });
  };
  value("", 0);
  space();
  if (i < text.length) fail("unexpected text after the preset");
  return spans;
}

function lineColumn(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** The preset's own path in a request path: `preset.tracks[0].gainDb` is `tracks[0].gainDb`; null when the path
 *  names another part of the request (`overrides.durationSeconds`). */
function presetPath(requestPath) {
  if (requestPath === "preset" || requestPath === "$" || requestPath === "") return "";
  for (const prefix of ["preset.", "$.preset.", "preset["]) {
    if (requestPath.startsWith(prefix)) {
      return prefix.endsWith("[") ? requestPath.slice(prefix.length - 1) : requestPath.slice(prefix.length);
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Calls

function token() { return ui.token.value.trim(); }

/** The request a render and a validation send: the preset exactly as typed (so the server sees what the person
 *  wrote, a key given twice included) and the format. */
function requestBody() {
  const text = ui.preset.value.replace(/^\uFEFF/, "").trim();
  return `{"preset":${text},"format":${JSON.stringify(ui.format.value)}}`;
}

async function call(path, options = {}) {
  const headers = { Authorization: `Bearer ${token()}`, ...(options.headers ?? {}) };
  return fetch(path, { ...options, headers });
}

/** A failed call's problem (RFC 9457), or one made from its status when the body is not one. */
async function problemOf(response) {
  let problem = null;
  try { problem = await response.json(); } catch { /* not JSON */ }
  if (!problem || typeof problem !== "object") problem = {};
  problem.status ??= response.status;
  problem.detail ??= problem.title ?? `${response.status} ${response.statusText}`;
  if (response.status === 401) problem.detail = `The server does not accept this token (${problem.detail}).`;
  if (response.status === 429) {
    const after = response.headers.get("Retry-After");
    if (after) problem.detail += ` Try again in ${after} s.`;
  }
  return problem;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors and validation

let errorSpan = null;

/** Whether a failed call's problem is about the request itself (malformed, or a wrong value), rather than the
 *  token, the body's size or the server's load. */
function isPresetProblem(problem) {
  return problem.status === 400 || problem.status === 422 || typeof problem.jsonPath === "string";
}

/** Shows a problem: its JSON path, the line of the preset it names (`spans` locates it, or `span` is given), and why. */
function showError(problem, spans, span = null) {
  const path = problem.jsonPath ?? "";
  ui.errorPath.textContent = path || "(the request)";
  const inPreset = path ? presetPath(path) : null;
  errorSpan = span ?? (inPreset !== null && spans ? spans.get(inPreset) ?? null : null);
  ui.errorLine.textContent = errorSpan ? `, line ${lineColumn(ui.preset.value, errorSpan.start).line}` : "";
  ui.errorReason.textContent = problem.reason || problem.detail || "The preset is not valid.";
  ui.errorShow.hidden = errorSpan === null;
  ui.error.hidden = false;
  ui.preset.setAttribute("aria-invalid", "true");
}

function clearError() {
  ui.error.hidden = true;
  errorSpan = null;
  ui.preset.removeAttribute("aria-invalid");
}

function showWarnings(warnings) {
  ui.warnings.replaceChildren(...(warnings ?? []).map((w) => {
    const li = document.createElement("li");
    li.textContent = w;
    return li;
  }));
  ui.warnings.hidden = !warnings || warnings.length === 0;
}

/** Reads the textarea: its spans, or null after showing its syntax error. */
function readPreset() {
  const text = ui.preset.value.replace(/^\uFEFF/, "");
  if (text.trim() === "") {
    showError({ jsonPath: "preset", reason: "The preset is empty." }, null);
    return null;
  }
  try {
    return locateJSON(text);
  } catch (e) {
    const at = Math.min(e.offset ?? 0, Math.max(0, text.length - 1));
    showError({ jsonPath: "preset", reason: `Not JSON: ${e.message}.` }, null, { start: at, end: at + 1 });
    return null;
  }
}

let validateTimer = 0;
let validateSeq = 0;

function scheduleValidate() {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(validate, VALIDATE_DELAY_MS);
}

async function validate() {
  const seq = ++validateSeq;
  const spans = readPreset();
  showWarnings([]);
  if (!spans) { ui.validation.textContent = ""; return; }
  if (!token()) {
    clearError();
    ui.validation.textContent = "Enter the token to have the server check the preset.";
    return;
  }
  ui.validation.textContent = "Checking…";
  let response;
  try {
    response = await call("v1/validate", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: requestBody(),
    });
  } catch (e) {
    if (seq === validateSeq) ui.validation.textContent = `The server could not be reached: ${e.message}`;
    return;
  }
  if (seq !== validateSeq) return; // typed again since
  if (!response.ok) {
    const problem = await problemOf(response);
    if (seq !== validateSeq) return;
    if (isPresetProblem(problem)) {
      ui.validation.textContent = "";
      showError(problem, spans);
    } else {
      clearError();
      ui.validation.textContent = `Not checked: ${problem.detail}`;
    }
    return;
  }
  const v = await response.json();
  if (seq !== validateSeq) return;
  showWarnings(v.warnings);
  if (v.valid) {
    clearError();
    const parts = ["Valid"];
    if (typeof v.durationSeconds === "number") parts.push(clock(v.durationSeconds));
    if (v.sampleRate) parts.push(`${v.sampleRate} Hz`);
    if (v.channels) parts.push(v.channels === 1 ? "mono" : "stereo");
    ui.validation.textContent = parts.join(", ") + ".";
  } else {
    ui.validation.textContent = "";
    showError(v.error ?? { detail: "The preset is not valid." }, spans);
  }
}

function selectError() {
  if (!errorSpan) return;
  ui.preset.focus();
  ui.preset.setSelectionRange(errorSpan.start, errorSpan.end);
  // Bring the selection into view: the line's share of the text's height.
  const { line } = lineColumn(ui.preset.value, errorSpan.start);
  const lines = ui.preset.value.split("\n").length;
  ui.preset.scrollTop = Math.max(0, (line - 3) / lines * ui.preset.scrollHeight);
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering and following

let current = null; // { id, abort: AbortController }

function setStatus(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

/** The state in words: what #status (a live region) says, so it speaks once per state, not per percent. */
function describe(render) {
  switch (render.state) {
    case "queued": return "Queued.";
    case "rendering": return "Rendering…";
    case "succeeded": return "Rendered.";
    case "failed": return `Failed: ${render.error?.detail ?? "no reason given"}`;
    case "cancelled": return "Cancelled.";
    default: return render.state;
  }
}

/** How far a render is, shown beside the progress bar. */
function describeProgress(p) {
  let text = `${Math.round(p.fraction * 100)} %`;
  if (p.speed) text += `, ${p.speed.toFixed(p.speed < 10 ? 1 : 0)}× realtime`;
  if (typeof p.secondsLeft === "number") {
    text += p.secondsLeft < 1 ? ", under a second left" : `, about ${clock(p.secondsLeft)} left`;
  }
  return text + ".";
}

function showProgress(render) {
  const text = describe(render);
  if (ui.status.dataset.state !== render.state || ui.status.textContent !== text) setStatus(render.state, text);
  const p = render.state === "rendering" ? render.progress ?? null : null;
  ui.progress.hidden = FINAL_STATES.has(render.state);
  ui.progressText.hidden = p === null;
  if (p === null) {
    ui.progress.removeAttribute("value"); // indeterminate while queued
  } else {
    ui.progress.value = p.fraction;
    ui.progressText.textContent = describeProgress(p);
  }
}

async function startRender() {
  clearTimeout(validateTimer);
  const spans = readPreset();
  if (!spans) { ui.preset.focus(); return; }
  if (!token()) {
    setStatus("error", "Enter the token first.");
    ui.token.focus();
    return;
  }
  current?.abort.abort();
  const abort = new AbortController();
  const run = { id: null, abort };
  current = run;
  hideResult();
  setStatus("submitting", "Submitting…");
  ui.cancel.hidden = false;
  try {
    const response = await call("v1/renders", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: requestBody(), signal: abort.signal,
    });
    if (!response.ok) {
      const problem = await problemOf(response);
      if (isPresetProblem(problem)) showError(problem, spans);
      setStatus("error", `Not rendered: ${problem.detail}`);
      ui.cancel.hidden = true;
      return;
    }
    clearError();
    let render = await response.json();
    run.id = render.id;
    showProgress(render);
    if (!FINAL_STATES.has(render.state)) render = await follow(render.id, abort.signal);
    ui.cancel.hidden = true;
    showProgress(render);
    if (render.state === "succeeded") await showResult(render, abort.signal);
  } catch (e) {
    if (abort.signal.aborted) return;
    ui.cancel.hidden = true;
    ui.progress.hidden = true;
    ui.progressText.hidden = true;
    setStatus("error", `Lost the server: ${e.message}`);
  }
}

/** Follows render `id` to its end: its event stream, then polling if the stream ends before the render does. */
async function follow(id, signal) {
  const last = await readEvents(id, signal);
  if (last && FINAL_STATES.has(last.state)) return last;
  let delay = 500;
  for (;;) {
    const response = await call(`v1/renders/${id}`, { signal });
    if (!response.ok) throw new Error((await problemOf(response)).detail);
    const render = await response.json();
    showProgress(render);
    if (FINAL_STATES.has(render.state)) return render;
    await sleep(delay, signal);
    delay = Math.min(delay * 1.5, 3000);
  }
}

/** Reads the render's server-sent events (with `fetch`, which can send the token, unlike EventSource) and shows
 *  each; returns the last render seen, or null when there is no stream. */
async function readEvents(id, signal) {
  let response;
  try {
    response = await call(`v1/renders/${id}/events`, { headers: { Accept: "text/event-stream" }, signal });
  } catch (e) {
    if (signal.aborted) throw e;
    return null;
  }
  if (!response.ok || !response.body) return null;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let last = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      // Events end with a blank line; lines end with CRLF, LF or CR.
      buffer = buffer.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block);
        if (!event || !event.data) continue;
        let render;
        try { render = JSON.parse(event.data); } catch { continue; }
        last = render;
        showProgress(render);
        if (FINAL_STATES.has(render.state)) return render;
      }
    }
  } catch (e) {
    if (signal.aborted) throw e;
  } finally {
    reader.cancel().catch(() => {});
  }
  return last;
}

/** One server-sent event's name and data (the data lines joined by newlines), or null for a comment only. */
function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  return data.length ? { name, data: data.join("\n") } : null;
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}

async function cancelRender() {
  const running = current;
  if (!running) return;
  running.abort.abort();
  ui.cancel.hidden = true;
  ui.progress.hidden = true;
  ui.progressText.hidden = true;
  if (!running.id) { setStatus("cancelled", "Cancelled."); return; }
  try {
    const response = await call(`v1/renders/${running.id}`, { method: "DELETE" });
    if (response.ok) showProgress(await response.json());
    else setStatus("error", `Could not cancel: ${(await problemOf(response)).detail}`);
  } catch (e) {
    setStatus("error", `Could not cancel: ${e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The result: waveform, chapters, player, download

let audioURL = null;
let peaks = null; // { columns, min: Float32Array, max: Float32Array } scaled to -1...1 by the file's peak
let chapters = [];

function hideResult() {
  ui.result.hidden = true;
  ui.waveform.dataset.ready = "false";
  ui.player.pause();
  ui.player.removeAttribute("src");
  ui.player.load();
  if (audioURL) URL.revokeObjectURL(audioURL);
  audioURL = null;
  ui.download.hidden = true;
  ui.download.removeAttribute("href");
  ui.loadAudioRow.hidden = true;
  peaks = null;
  chapters = [];
  ui.chapters.replaceChildren();
}

async function showResult(render, signal) {
  ui.result.hidden = false;
  chapters = (render.chapters ?? []).filter((c) => typeof c.startSeconds === "number");
  listChapters(render);
  const bytes = render.result?.bytes;
  ui.resultInfo.textContent = [render.format, bytes ? size(bytes) : null, render.durationSeconds ? clock(render.durationSeconds) : null]
    .filter(Boolean).join(", ");
  const audio = bytes && bytes > AUTO_LOAD_BYTES ? offerAudio(render, bytes) : loadAudio(render, signal);
  const wave = loadWaveform(render.id, signal);
  const outcomes = await Promise.allSettled([audio, wave]);
  if (signal.aborted) return;
  const failed = outcomes.filter((o) => o.status === "rejected").map((o) => o.reason.message);
  if (failed.length) setStatus("error", `Rendered, but: ${failed.join("; ")}`);
}

function offerAudio(render, bytes) {
  ui.loadAudio.textContent = `Load the audio (${size(bytes)})`;
  ui.loadAudioRow.hidden = false;
  ui.loadAudio.onclick = () => {
    ui.loadAudioRow.hidden = true;
    loadAudio(render, current?.abort.signal).catch((e) => setStatus("error", e.message));
  };
}

async function loadAudio(render, signal) {
  const response = await call(`v1/renders/${render.id}/audio`, { signal });
  if (!response.ok) throw new Error(`the audio: ${(await problemOf(response)).detail}`);
  const blob = await response.blob();
  if (signal?.aborted) return;
  if (audioURL) URL.revokeObjectURL(audioURL);
  audioURL = URL.createObjectURL(blob);
  ui.player.src = audioURL;
  ui.download.href = audioURL;
  ui.download.download = fileName(render);
  ui.download.textContent = `Download ${ui.download.download}`;
  ui.download.hidden = false;
}

function fileName(render) {
  const base = (render.name ?? "").normalize("NFKD").replace(/[^\w\s-]/g, "").trim().replace(/[\s_]+/g, "-").toLowerCase();
  return `${base || "mixrender"}-${render.id.slice(0, 8)}.${render.format}`;
}

async function loadWaveform(id, signal) {
  const response = await call(`v1/renders/${id}/waveform?format=json`, { signal });
  if (!response.ok) throw new Error(`the waveform: ${(await problemOf(response)).detail}`);
  peaks = readPeaks(await response.json());
  drawWaveform();
  ui.waveform.dataset.ready = "true";
}

/** BBC audiowaveform's JSON (docs/waveform.md): `data` holds min, max per column and channel, channels
 *  interleaved; the channels are merged into one span per column, scaled so the file's peak fills the height. */
function readPeaks(w) {
  const channels = Math.max(1, w.channels ?? 1);
  const data = w.data ?? [];
  const columns = Math.floor(data.length / (2 * channels));
  const min = new Float32Array(columns), max = new Float32Array(columns);
  let peak = 0;
  for (let j = 0; j < columns; j++) {
    let lo = Infinity, hi = -Infinity;
    for (let c = 0; c < channels; c++) {
      const k = 2 * (j * channels + c);
      lo = Math.min(lo, data[k]);
      hi = Math.max(hi, data[k + 1]);
    }
    min[j] = lo; max[j] = hi;
    peak = Math.max(peak, Math.abs(lo), Math.abs(hi));
  }
  const full = (w.bits === 8 ? 128 : 32768);
  const scale = 1 / Math.max(peak, full / 1000); // silence stays a line, not noise blown up
  for (let j = 0; j < columns; j++) { min[j] *= scale; max[j] *= scale; }
  return { columns, min, max };
}

function drawWaveform() {
  const canvas = ui.waveform;
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  const g = canvas.getContext("2d");
  const style = getComputedStyle(canvas);
  const colour = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  g.fillStyle = colour("--wave-background", "#f4f4f0");
  g.fillRect(0, 0, width, height);
  if (!peaks || peaks.columns === 0) return;
  const mid = height / 2, half = (height - 2 * ratio) / 2;
  const played = ui.player.duration > 0 ? ui.player.currentTime / ui.player.duration : 0;
  const playedX = played * width;
  const { columns, min, max } = peaks;
  for (let x = 0; x < width; x++) {
    const from = Math.floor(x * columns / width);
    const to = Math.max(from + 1, Math.floor((x + 1) * columns / width));
    let lo = Infinity, hi = -Infinity;
    for (let j = from; j < to && j < columns; j++) { lo = Math.min(lo, min[j]); hi = Math.max(hi, max[j]); }
    if (lo === Infinity) continue;
    const top = mid - hi * half, bottom = mid - lo * half;
    g.fillStyle = x < playedX ? colour("--wave-played", "#1d5c8c") : colour("--wave", "#6b8fb0");
    g.fillRect(x, top, 1, Math.max(ratio, bottom - top));
  }
  const length = totalSeconds();
  if (length > 0) {
    g.fillStyle = colour("--wave-chapter", "#b04a1d");
    for (const c of chapters) g.fillRect(Math.round(c.startSeconds / length * width), 0, ratio, height);
  }
  if (played > 0) {
    g.fillStyle = colour("--wave-head", "#111");
    g.fillRect(Math.round(playedX), 0, ratio, height);
  }
}

function totalSeconds() {
  if (ui.player.duration > 0 && Number.isFinite(ui.player.duration)) return ui.player.duration;
  return lastDuration;
}
let lastDuration = 0;

function listChapters(render) {
  lastDuration = render.durationSeconds ?? 0;
  const items = chapters.map((c) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "chapter";
    button.dataset.seconds = String(c.startSeconds);
    const time = document.createElement("span");
    time.className = "time";
    time.textContent = clock(c.startSeconds);
    button.append(time, " ", c.name);
    button.setAttribute("aria-label", `Play from ${c.name}, at ${clock(c.startSeconds)}`);
    button.addEventListener("click", () => seek(c.startSeconds, true));
    li.append(button);
    return li;
  });
  if (items.length === 0) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = "This render has no chapters.";
    items.push(li);
  }
  ui.chapters.replaceChildren(...items);
}

function seek(seconds, play) {
  if (!ui.player.src) return;
  ui.player.currentTime = seconds;
  if (play) ui.player.play().catch(() => {});
  drawWaveform();
}

// ---------------------------------------------------------------------------------------------------------------
// Words

function clock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

function size(bytes) {
  const units = ["bytes", "KB", "MB", "GB"];
  let n = bytes, u = 0;
  while (n >= 1000 && u < units.length - 1) { n /= 1000; u++; }
  return `${u ? n.toFixed(n < 10 ? 1 : 0) : n} ${units[u]}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Wiring

function start() {
  try { ui.token.value = localStorage.getItem(TOKEN_KEY) ?? ""; } catch { /* storage off */ }
  ui.preset.value = DEFAULT_PRESET;
  ui.token.addEventListener("input", () => {
    try { localStorage.setItem(TOKEN_KEY, token()); } catch { /* storage off */ }
    scheduleValidate();
  });
  ui.preset.addEventListener("input", scheduleValidate);
  ui.preset.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); startRender(); }
  });
  ui.format.addEventListener("change", validate);
  ui.presetFile.addEventListener("change", async () => {
    const file = ui.presetFile.files?.[0];
    if (!file) return;
    ui.preset.value = await file.text();
    validate();
  });
  ui.errorShow.addEventListener("click", selectError);
  ui.render.addEventListener("click", startRender);
  ui.cancel.addEventListener("click", cancelRender);
  ui.waveform.addEventListener("click", (event) => {
    const length = totalSeconds();
    if (length <= 0) return;
    const box = ui.waveform.getBoundingClientRect();
    seek((event.clientX - box.left) / box.width * length, true);
  });
  const redraw = () => { if (!ui.result.hidden) drawWaveform(); };
  for (const name of ["timeupdate", "seeked", "loadedmetadata"]) ui.player.addEventListener(name, redraw);
  let frame = 0;
  const animate = () => { redraw(); frame = ui.player.paused ? 0 : requestAnimationFrame(animate); };
  ui.player.addEventListener("play", () => { if (!frame) frame = requestAnimationFrame(animate); });
  window.addEventListener("resize", redraw);
  validate();
}

start();
