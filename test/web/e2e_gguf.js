/* The page of examples/web with a .gguf file (llama.cpp), in headless Chromium (make check-web,
 * after e2e.js).
 *
 *   node test/web/e2e_gguf.js URL CLI OUTDIR
 *
 * The GGUF files are written here, at test time: a small llama model (4 layers, q4_0 and f32
 * tensors, zero weights) whose header is about 2.3 MB (a long vocabulary) in a file of about
 * 8.6 MB. The test opens it as a user does and checks that
 *   - the page reads only the header: slices of the file of 1 MiB, then 4 MiB (the growth of
 *     examples/web/gguf.js while llmmem_model_from_gguf answers LLMMEM_E_BUFFER_TOO_SMALL),
 *     never the weights;
 *   - the model becomes llama.cpp's (mode inference, runtime llama_cpp), its fields show with
 *     labels for people and the HF runtime's fields hide;
 *   - the page's result JSON equals `llmmem estimate --gguf FILE ... --json` run with the very
 *     command the page shows, the exported scenario (model.gguf) gives it too, the verdict is
 *     the CLI's --svg title, the settings line the CLI table's, the llama.cpp buffers table
 *     the result's terms;
 *   - the planner's answers are `llmmem plan ... --max-ngl --max-ctx --json` and
 *     `--max-batch --max-seq-len --min-gpus --json`;
 *   - a quantized V cache without flash attention is refused by the page and the CLI alike; a
 *     truncated file is refused with the library's message naming the file and the byte;
 *   - a .gguf dropped on the page becomes the model; a link names the file and, opened fresh,
 *     asks for it again.
 * Screenshot: OUTDIR/web-gguf.png. */
"use strict";
const assert = require("assert");
const fs = require("fs");
const path = require("path");
const { execFileSync, spawnSync } = require("child_process");
const { chromium } = require("playwright-core");

const [URL, CLI, OUT] = process.argv.slice(2);
if (!URL || !CLI || !OUT) {
  console.error("usage: node test/web/e2e_gguf.js URL CLI OUTDIR");
  process.exit(2);
}
const CLI_ABS = path.resolve(CLI);
const DIR = path.join(OUT, "gguf");
fs.mkdirSync(DIR, { recursive: true });

let passed = 0, failed = 0;
function ok(name) { passed++; console.log("ok   " + name); }
function bad(name, e) { failed++; console.log("FAIL " + name + "\n     " + String(e && e.stack || e).split("\n").slice(0, 8).join("\n     ")); }

// ---- a GGUF v3 writer (the format of ggml/docs/gguf.md), little-endian ------------------------
const T = { U32: 4, I32: 5, F32: 6, STRING: 8, ARRAY: 9 };
const GGML = { F32: 0, Q4_0: 2 }; // block 32, 18 bytes (ggml-common.h block_q4_0)
function writeGguf(file, { kv, tensors, alignment = 32 }) {
  const parts = [];
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
  const f32 = (v) => { const b = Buffer.alloc(4); b.writeFloatLE(v); parts.push(b); };
  const str = (s) => { const b = Buffer.from(s, "utf8"); u64(b.length); parts.push(b); };
  parts.push(Buffer.from("GGUF"));
  u32(3);
  u64(tensors.length);
  u64(kv.length);
  for (const [key, type, value] of kv) {
    str(key);
    u32(type);
    if (type === T.U32) u32(value);
    else if (type === T.F32) f32(value);
    else if (type === T.STRING) str(value);
    else if (type === T.ARRAY) {
      const [et, items] = value;
      u32(et);
      u64(items.length);
      for (const it of items) et === T.STRING ? str(it) : et === T.I32 ? (() => { const b = Buffer.alloc(4); b.writeInt32LE(it); parts.push(b); })() : f32(it);
    } else throw new Error("type " + type);
  }
  const bytesOf = (ne, type) => { const n = ne.reduce((a, b) => a * b, 1); return type === GGML.F32 ? n * 4 : (n / 32) * 18; };
  let off = 0;
  const pad = (n) => Math.ceil(n / alignment) * alignment;
  for (const t of tensors) {
    str(t.name);
    u32(t.ne.length);
    for (const d of t.ne) u64(d);
    u32(t.type);
    u64(off);
    off = pad(off + bytesOf(t.ne, t.type));
  }
  let header = Buffer.concat(parts);
  header = Buffer.concat([header, Buffer.alloc(pad(header.length) - header.length)]);
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, header);
  fs.ftruncateSync(fd, header.length + off); // the tensor data: zeros
  fs.closeSync(fd);
  return { headerBytes: header.length, size: header.length + off };
}

// A llama model: n_embd 256, 4 layers, 4 heads (2 KV heads), n_ff 768, a vocabulary of `vocab`
// tokens whose long names make the header large.
function tinyLlama(file, vocab) {
  const E = 256, L = 4, FF = 768, KVD = 128;
  const kv = [
    ["general.architecture", T.STRING, "llama"],
    ["general.name", T.STRING, "tiny-llama-web"],
    ["general.file_type", T.U32, 2],
    ["llama.context_length", T.U32, 16384],
    ["llama.embedding_length", T.U32, E],
    ["llama.block_count", T.U32, L],
    ["llama.feed_forward_length", T.U32, FF],
    ["llama.attention.head_count", T.U32, 4],
    ["llama.attention.head_count_kv", T.U32, 2],
    ["llama.attention.layer_norm_rms_epsilon", T.F32, 1e-5],
    ["llama.rope.freq_base", T.F32, 10000],
    ["tokenizer.ggml.model", T.STRING, "llama"],
    ["tokenizer.ggml.tokens", T.ARRAY, [T.STRING, Array.from({ length: vocab }, (_, i) => "token-" + String(i).padStart(6, "0") + "-".repeat(90))]],
    ["tokenizer.ggml.scores", T.ARRAY, [T.F32, Array.from({ length: vocab }, () => 0)]],
    ["tokenizer.ggml.token_type", T.ARRAY, [T.I32, Array.from({ length: vocab }, () => 1)]],
  ];
  const tensors = [{ name: "token_embd.weight", ne: [E, vocab], type: GGML.Q4_0 }];
  for (let i = 0; i < L; i++) {
    const b = "blk." + i + ".";
    tensors.push({ name: b + "attn_norm.weight", ne: [E], type: GGML.F32 },
                 { name: b + "attn_q.weight", ne: [E, E], type: GGML.Q4_0 },
                 { name: b + "attn_k.weight", ne: [E, KVD], type: GGML.Q4_0 },
                 { name: b + "attn_v.weight", ne: [E, KVD], type: GGML.Q4_0 },
                 { name: b + "attn_output.weight", ne: [E, E], type: GGML.Q4_0 },
                 { name: b + "ffn_norm.weight", ne: [E], type: GGML.F32 },
                 { name: b + "ffn_gate.weight", ne: [E, FF], type: GGML.Q4_0 },
                 { name: b + "ffn_up.weight", ne: [E, FF], type: GGML.Q4_0 },
                 { name: b + "ffn_down.weight", ne: [FF, E], type: GGML.Q4_0 });
  }
  tensors.push({ name: "output_norm.weight", ne: [E], type: GGML.F32 }, { name: "output.weight", ne: [E, vocab], type: GGML.Q4_0 });
  return writeGguf(file, { kv, tensors });
}

// ---- the page and the CLI ----------------------------------------------------------------------
function runCommand(line, cwd, expectFail) {
  assert.ok(line.startsWith("llmmem "), "command starts with llmmem: " + line);
  const r = spawnSync("bash", ["-c", JSON.stringify(CLI_ABS) + line.slice("llmmem".length)], { cwd, encoding: "utf8" });
  if (!expectFail && r.status !== 0) throw new Error(`"${line}" exited ${r.status}: ${r.stderr}`);
  return r;
}
function cliSettings(line, cwd) {
  const out = runCommand(line, cwd).stdout.split("\n");
  const at = out.findIndex((l) => l.startsWith("Settings"));
  let settings = out[at].slice(12).trim();
  for (let i = at + 1; out[i].startsWith("            "); i++) settings += " " + out[i].trim();
  return settings;
}
function cliVerdict(line, cwd) {
  runCommand(line + " --svg verdict.svg", cwd);
  return fs.readFileSync(path.join(cwd, "verdict.svg"), "utf8").match(/<title>([^<]*)<\/title>/)[1]
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}
function jsonDiff(a, b, at = "", out = []) {
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) jsonDiff(a[k], b[k], at + "." + k, out);
  } else if (a !== b) out.push(`${at}: page ${JSON.stringify(a)} vs CLI ${JSON.stringify(b)}`);
  return out;
}
function sameJson(page, cli, what) {
  const d = jsonDiff(page, cli);
  assert.ok(d.length === 0, what + " differ:\n  " + d.slice(0, 12).join("\n  "));
}
async function settle(page) {
  await page.waitForFunction(() => {
    const s = document.getElementById("status");
    return s.dataset.state === "ok" || s.dataset.state === "error";
  }, null, { timeout: 30000 });
}
const shown = (page, n) => page.$eval("#row-" + n, (r) => !r.hidden && !r.closest("[hidden]"));
async function setParam(page, name, value) {
  assert.ok(await shown(page, name), "field " + name + " is shown");
  const sel = "#p-" + name;
  await page.$eval(sel, (el) => { const d = el.closest("details"); if (d) d.open = true; });
  if ((await page.$eval(sel, (el) => el.tagName)) === "SELECT") await page.selectOption(sel, String(value));
  else await page.fill(sel, String(value));
}
// Every slice and whole read of a File the page makes, recorded before the page's scripts run.
const RECORD_READS = () => {
  window.__reads = [];
  const slice = Blob.prototype.slice;
  Blob.prototype.slice = function (start, end) {
    if (this instanceof File) window.__reads.push({ name: this.name, size: this.size, start: start || 0, end: end == null ? this.size : end });
    return slice.apply(this, arguments);
  };
  for (const m of ["arrayBuffer", "text", "stream"]) {
    const f = Blob.prototype[m];
    Blob.prototype[m] = function () {
      if (this instanceof File) window.__reads.push({ name: this.name, size: this.size, start: 0, end: this.size, whole: m });
      return f.apply(this, arguments);
    };
  }
};

// The page's result against the CLI's for the command it shows.
async function checkAgainstCli(page, dir, what) {
  const command = (await page.textContent("#command")).trim();
  assert.strictEqual((await page.textContent("#command-a")).trim(), command, "pane command");
  fs.writeFileSync(path.join(dir, "command.txt"), command + "\n");
  const pageResult = JSON.parse(await page.textContent("#result-json"));
  const cli = JSON.parse(runCommand(command + " --json", dir).stdout);
  sameJson(pageResult, cli, what + ": page result and CLI result");
  const scen = await page.textContent("#scenario-out");
  fs.writeFileSync(path.join(dir, "scenario.json"), scen);
  assert.ok(JSON.parse(scen).model.gguf, "scenario names the gguf: " + scen);
  sameJson(JSON.parse(runCommand("llmmem estimate --scenario scenario.json --json", dir).stdout), cli,
           what + ": exported scenario's result and CLI result");
  assert.strictEqual((await page.textContent("#verdict-a")).trim(), cliVerdict(command, dir), what + ": verdict");
  assert.strictEqual((await page.textContent("#settings-a")).trim(), cliSettings(command, dir), what + ": settings line");
  // the llama.cpp buffers: the result's terms
  const rows = await page.$$eval("#lcpp-a tr[data-term]", (trs) => trs.map((t) => t.dataset.term));
  assert.deepStrictEqual(rows.sort(), cli.terms.map((t) => t.name).sort(), what + ": the buffers shown are the terms");
  // the planner: llama.cpp's questions
  const lines = (await page.textContent("#plan-command")).trim().split("\n");
  const lp = JSON.parse(runCommand(lines[0] + " --json", dir).stdout);
  const g = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  assert.strictEqual(await page.textContent("#max-ngl"), g(lp.max_ngl), what + ": max ngl");
  assert.strictEqual(await page.textContent("#max-ctx"), g(lp.max_ctx), what + ": max ctx");
  const inv = JSON.parse(runCommand(lines[1] + " --json", dir).stdout);
  assert.strictEqual(await page.textContent("#max-batch"), g(inv.max_batch), what + ": max batch (parallel)");
  assert.strictEqual(await page.textContent("#max-seq-len"), g(inv.max_ctx), what + ": longest sequence (ctx)");
  assert.strictEqual(await page.textContent("#min-gpus"), g(inv.min_gpus), what + ": fewest GPUs");
  assert.ok(!(await page.isHidden("#lcpp-plan")), "llama.cpp's planner shown");
  return { command, cli };
}

(async () => {
  const big = path.join(DIR, "tiny-llama.gguf");
  const info = tinyLlama(big, 20000);
  const MiB = 1048576;
  assert.ok(info.headerBytes > MiB && info.headerBytes < 4 * MiB && info.size > 2 * 4 * MiB,
            `test file: header ${info.headerBytes} B, size ${info.size} B`);
  const small = path.join(DIR, "small.gguf");
  tinyLlama(small, 512);
  const truncated = path.join(DIR, "truncated.gguf");
  fs.writeFileSync(truncated, fs.readFileSync(small).subarray(0, 40000)); // inside the tensor data

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(20000);
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.addInitScript(RECORD_READS);
  await page.goto(URL);
  await settle(page);

  // 1. the file opened: its header only, the model llama.cpp's
  try {
    await page.setInputFiles("#file", big);
    await page.waitForFunction(() => document.getElementById("src-gguf").checked);
    await settle(page);
    assert.strictEqual(await page.getAttribute("#status", "data-state"), "ok", await page.textContent("#status"));
    const reads = await page.evaluate(() => window.__reads.filter((r) => r.name === "tiny-llama.gguf"));
    assert.ok(reads.every((r) => !r.whole), "no whole read of the file: " + JSON.stringify(reads));
    assert.deepStrictEqual(reads.map((r) => [r.start, r.end]), [[0, MiB], [0, 4 * MiB]], "the slices read");
    assert.ok(Math.max(...reads.map((r) => r.end)) < info.size, "never the weights");
    assert.ok(/tiny-llama\.gguf/.test(await page.textContent("#drop-msg")), await page.textContent("#drop-msg"));
    assert.strictEqual(await page.inputValue("#p-mode"), "inference");
    assert.strictEqual(await page.inputValue("#p-runtime"), "llama_cpp");
    ok(`a ${(info.size / MiB).toFixed(1)} MiB .gguf opened: read ${reads.map((r) => r.end / MiB + " MiB").join(" then ")} ` +
       `(header ${(info.headerBytes / MiB).toFixed(2)} MiB), never the weights`);
  } catch (e) {
    bad("gguf opened", e);
  }

  // 2. the fields: llama.cpp's with labels for people, the HF runtime's hidden
  try {
    for (const n of ["n_gpu_layers", "ctx_size", "n_batch", "n_ubatch", "n_parallel", "cache_type_k", "cache_type_v", "flash_attn"])
      assert.ok(await shown(page, n), n + " shown");
    for (const n of ["batch_size", "prompt_len", "decode_len", "weights_format", "kv_cache_dtype", "param_dtype", "micro_batch_size"])
      assert.ok(!(await shown(page, n)), n + " hidden");
    const lbl = await page.$eval("#row-n_gpu_layers .lbl", (e) => e.textContent);
    assert.ok(!/_/.test(lbl) && /GPU/.test(lbl), "label: " + lbl);
    ok("llama.cpp's fields shown with labels (" + lbl + "), the HF runtime's hidden");
  } catch (e) {
    bad("fields", e);
  }

  // 3. the defaults, then llama.cpp's settings: page == CLI
  try {
    const d = path.join(DIR, "case-defaults");
    fs.mkdirSync(d, { recursive: true });
    fs.copyFileSync(big, path.join(d, "tiny-llama.gguf"));
    const { command, cli } = await checkAgainstCli(page, d, "defaults");
    assert.strictEqual(command, "llmmem estimate --gguf tiny-llama.gguf");
    ok(`${command}: page == CLI (total ${cli.total_bytes_per_gpu} B, fits ${cli.fits})`);

    const d2 = path.join(DIR, "case-settings");
    fs.mkdirSync(d2, { recursive: true });
    fs.copyFileSync(big, path.join(d2, "tiny-llama.gguf"));
    const set = [["n_gpu_layers", 3], ["ctx_size", 8192], ["n_ubatch", 256], ["n_parallel", 2], ["cache_type_k", "q8_0"],
                 ["cache_type_v", "q8_0"], ["flash_attn", "on"], ["gpu", "RTX-4090"]];
    for (const [n, v] of set) await setParam(page, n, v);
    await settle(page);
    assert.strictEqual(await page.getAttribute("#status", "data-state"), "ok", await page.textContent("#status"));
    const r2 = await checkAgainstCli(page, d2, "llama.cpp settings");
    for (const [n, v] of set) assert.ok(r2.command.includes("--" + n.replace(/_/g, "-") + " " + v), `command has ${n} ${v}: ${r2.command}`);
    assert.ok(/3 layers on the GPU/.test(await page.textContent("#settings-a")));
    // no allocator timeline for llama.cpp's buffers: the page says what `llmmem timeline` says
    const tl = runCommand(r2.command.replace(/^llmmem estimate/, "llmmem timeline"), d2, true);
    assert.notStrictEqual(tl.status, 0);
    assert.strictEqual(await page.getAttribute("#alloc-timeline", "data-state"), "none");
    const tlMsg = (await page.textContent("#alloc-timeline")).trim();
    assert.ok(tl.stderr.includes(tlMsg.replace(/^LLMMEM_E_[A-Z_]+: /, "")), `page: ${tlMsg}\nCLI: ${tl.stderr}`);
    await page.screenshot({ path: path.join(OUT, "web-gguf.png"), fullPage: true });
    ok(`${r2.command}: page == CLI, scenario == CLI, verdict, settings, buffers, planner`);
  } catch (e) {
    bad("page == CLI for a gguf", e);
  }

  // 4. refused alike: a quantized V cache without flash attention
  try {
    await setParam(page, "flash_attn", "off");
    await settle(page);
    assert.strictEqual(await page.getAttribute("#status", "data-state"), "error");
    const msg = await page.textContent("#status");
    const command = "llmmem estimate --gguf tiny-llama.gguf --n-gpu-layers 3 --ctx-size 8192 --n-ubatch 256 --n-parallel 2 " +
      "--cache-type-k q8_0 --cache-type-v q8_0 --flash-attn off --gpu RTX-4090";
    const r = runCommand(command, path.join(DIR, "case-settings"), true);
    assert.notStrictEqual(r.status, 0);
    const cliMsg = r.stderr.trim().replace(/^llmmem: /, "");
    assert.strictEqual(msg, cliMsg, "the page's message is the CLI's");
    assert.ok(/flash attention/i.test(msg), msg);
    ok("quantized V cache without flash attention: refused by the page and the CLI alike (" + cliMsg.slice(0, 60) + "...)");
  } catch (e) {
    bad("refused alike", e);
  }

  // 5. a truncated file: the library's message, with the file's name and the byte
  try {
    await page.setInputFiles("#file", truncated);
    await page.waitForFunction(() => /truncated\.gguf: (?!reading)/.test(document.getElementById("drop-msg").textContent));
    const msg = await page.textContent("#drop-msg");
    const r = runCommand("llmmem estimate --gguf truncated.gguf", DIR, true);
    const cliMsg = r.stderr.trim().replace(/^llmmem: LLMMEM_E_[A-Z_]+: /, "");
    assert.ok(/byte \d+/.test(cliMsg), cliMsg);
    assert.ok(msg.endsWith(cliMsg), `page: ${msg}\nCLI:  ${cliMsg}`);
    // the scenario keeps its model
    assert.ok(/tiny-llama\.gguf/.test(await page.textContent("#gguf-name")));
    ok("a truncated .gguf: " + cliMsg);
  } catch (e) {
    bad("truncated file", e);
  }

  // 6. a .gguf dropped on the page; the link names it, a fresh page asks for it again
  try {
    const bytes = fs.readFileSync(small).toString("base64");
    await page.evaluate((b64) => {
      const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([raw], "small.gguf"));
      document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, bytes);
    await page.waitForFunction(() => /small\.gguf/.test(document.getElementById("gguf-name").textContent));
    await settle(page);
    await setParam(page, "flash_attn", "auto");
    await settle(page);
    const command = (await page.textContent("#command")).trim();
    assert.ok(command.startsWith("llmmem estimate --gguf small.gguf"), command);
    sameJson(JSON.parse(await page.textContent("#result-json")), JSON.parse(runCommand(command + " --json", DIR).stdout),
             "dropped gguf: page and CLI");
    const url = page.url();
    assert.ok(/gguf=small\.gguf/.test(url), url);
    const fresh = await browser.newPage();
    await fresh.goto(url);
    await settle(fresh);
    assert.strictEqual(await fresh.getAttribute("#status", "data-state"), "error");
    assert.ok(/small\.gguf is not loaded here/.test(await fresh.textContent("#status")), await fresh.textContent("#status"));
    await fresh.close();
    ok("a .gguf dropped becomes the model; the link names it and a fresh page asks for it: " + url.slice(url.indexOf("#")));
  } catch (e) {
    bad("drop / link", e);
  }

  try {
    assert.deepStrictEqual(errors, [], "no page errors");
    ok("no page errors");
  } catch (e) {
    bad("page errors", e);
  }
  await browser.close();
  console.log(`check-web (gguf): ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
