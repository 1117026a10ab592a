/* End-to-end test of the page of examples/web in headless Chromium (make check-web).
 *
 *   node test/web/e2e.js URL CLI OUTDIR
 *
 * URL: the page served by a plain static server (mk/check-web.sh starts python3 -m
 * http.server); CLI: the llmmem binary built from the same sources; OUTDIR: where the
 * screenshots and the command files go. For each scenario the test fills the form the way
 * a user does, then checks that
 *   - the result JSON of the page equals `llmmem estimate ... --json` run with the very
 *     command the page shows (so the command is right and the numbers are the CLI's),
 *   - the exported scenario JSON, given to `llmmem estimate --scenario`, gives it too,
 *   - the verdict line, the settings line and the GPU line are the CLI's (its table and
 *     its --svg title), and the chart agrees with the verdict: its first bar stacks the
 *     total per GPU in the scale of the capacity line and crosses it exactly when the
 *     estimate does not fit,
 *   - the summary shows those numbers (GiB/GB recomputed here from the CLI's bytes),
 *   - the planner's table is `llmmem plan ... --gpus N --top K --json` and the inverse
 *     answers are `llmmem plan ... --max-batch --max-seq-len --min-gpus --json`.
 * Then: the fields have labels for people and a line of help, and show only where they
 * apply; the link holds the settings (opened in a fresh page it gives the same result); a
 * config.json dropped, a scenario opened and a config.json pasted become the model; two
 * scenarios side by side are each the CLI's; a bad value shows the library's error as the
 * CLI reports it. Screenshots: OUTDIR/web.png, web-zero3.png, web-vllm.png, compare.png
 * (docs/web-compare.png is a copy of the last, for reviewers).
 * Chromium is Debian's (/usr/bin/chromium, or CHROMIUM), driven by playwright-core.
 */
"use strict";
const assert = require("assert");
const fs = require("fs");
const path = require("path");
const { execFileSync, spawnSync } = require("child_process");
const { chromium } = require("playwright-core");

const [URL, CLI, OUT] = process.argv.slice(2);
if (!URL || !CLI || !OUT) {
  console.error("usage: node test/web/e2e.js URL CLI OUTDIR");
  process.exit(2);
}
const ROOT = path.resolve(__dirname, "..", "..");
const CLI_ABS = path.resolve(CLI);
fs.mkdirSync(OUT, { recursive: true });

const GiB = 1073741824;
const both = (b) => (b / GiB).toFixed(2) + " GiB / " + (b / 1e9).toFixed(2) + " GB";
const g3 = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

let passed = 0, failed = 0;
let allocTimelines = 0; // scenarios whose allocator timeline the page drew
function ok(name) { passed++; console.log("ok   " + name); }
function bad(name, e) { failed++; console.log("FAIL " + name + "\n     " + String(e && e.stack || e).split("\n").slice(0, 8).join("\n     ")); }

// Runs a command line the page printed, with its leading "llmmem" replaced by the CLI.
function runCommand(line, cwd, expectFail) {
  assert.ok(line.startsWith("llmmem "), "command starts with llmmem: " + line);
  const r = spawnSync("bash", ["-c", JSON.stringify(CLI_ABS) + line.slice("llmmem".length)], { cwd, encoding: "utf8" });
  if (!expectFail && r.status !== 0) throw new Error(`"${line}" exited ${r.status}: ${r.stderr}`);
  return r;
}

// The CLI's table lines of a command: "Settings" (with its continuation lines) and "GPU".
function cliHeader(line, cwd) {
  const out = runCommand(line, cwd).stdout.split("\n");
  const at = out.findIndex((l) => l.startsWith("Settings"));
  let settings = out[at].slice(12).trim();
  for (let i = at + 1; out[i].startsWith("            "); i++) settings += " " + out[i].trim();
  const gpu = out.find((l) => l.startsWith("GPU ")).slice(12).trim();
  const prec = out.find((l) => l.startsWith("Precision "));
  return { settings, gpu, precision: prec ? prec.slice(12).trim() : "" };
}
// The CLI's verdict: the title of its --svg.
function cliVerdict(line, cwd) {
  const svg = path.join(cwd, "verdict.svg");
  runCommand(line + " --svg verdict.svg", cwd);
  return fs.readFileSync(svg, "utf8").match(/<title>([^<]*)<\/title>/)[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

async function settle(page) {
  await page.waitForFunction(() => {
    const s = document.getElementById("status");
    return s.dataset.state === "ok" || s.dataset.state === "error";
  }, null, { timeout: 120000 });
}

// Sets one parameter the way a user does: the field must be shown; opens its fold, then
// types or picks.
async function setParam(page, name, value) {
  const sel = "#p-" + name;
  assert.ok(await page.isVisible("#row-" + name) || await page.$eval("#row-" + name, (r) => !r.hidden && !r.closest("[hidden]")),
            "field " + name + " is shown");
  await page.$eval(sel, (el) => { const d = el.closest("details"); if (d) d.open = true; });
  const tag = await page.$eval(sel, (el) => el.tagName);
  if (tag === "SELECT") await page.selectOption(sel, String(value));
  else await page.fill(sel, String(value));
}

// Buttons and radios are pressed from the keyboard: a pointer click lands on coordinates,
// and the page may reflow (results re-rendered) between locating and clicking.
async function press(page, sel) {
  await page.focus(sel);
  await page.keyboard.press(/radio|checkbox/.test(await page.getAttribute(sel, "type") || "") ? "Space" : "Enter");
}

// Paths where two JSON values differ (for the failure message).
function jsonDiff(a, b, at = "", out = []) {
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) jsonDiff(a[k], b[k], at + "." + k, out);
  } else if (a !== b) out.push(`${at}: page ${JSON.stringify(a)} vs CLI ${JSON.stringify(b)}`);
  return out;
}
function sameJson(page, cli, what) {
  const d = jsonDiff(page, cli);
  assert.ok(d.length === 0, what + " differ (are the page and the CLI built from the same sources?):\n  " + d.slice(0, 12).join("\n  "));
}

// The chart of pane x against the result: the first bar is the total per GPU in the scale
// of the capacity line, made of the peak phase's components, the reserve and the context.
async function checkChart(page, x, r) {
  const g = await page.$eval("#chart-" + x + " svg", (svg) => {
    const segs = [...svg.querySelectorAll("rect.segment")].map((e) => ({
      x: +e.getAttribute("x"), y: +e.getAttribute("y"), h: +e.getAttribute("height"), t: e.textContent }));
    const x0 = Math.min(...segs.map((s) => s.x));
    const first = segs.filter((s) => s.x === x0);
    return { cap: +svg.querySelector("line.cap").getAttribute("y1"), base: +svg.querySelector("line.base").getAttribute("y1"),
             top: Math.min(...first.map((s) => s.y)), height: first.reduce((a, s) => a + s.h, 0), names: first.map((s) => s.t).join(" | ") };
  });
  const want = r.total_bytes_per_gpu / r.gpu_memory_bytes, got = g.height / (g.base - g.cap);
  assert.ok(Math.abs(got - want) < 0.005, `first bar / capacity ${got.toFixed(4)}, total / capacity ${want.toFixed(4)}`);
  assert.ok(/allocator reserve/.test(g.names) && /CUDA context/.test(g.names), "first bar: " + g.names);
  await checkColours(page, "#chart-" + x + " svg", "rect.segment", "rect.legend", "data-component");
  // vLLM's verdict is its KV budget (total x gpu_memory_utilization), not the capacity
  if (!r.requested_bytes) assert.strictEqual(g.top < g.cap, !r.fits, "bar crosses the capacity line iff it does not fit");
}

// The colours a chart shows are its legend's: each swatch's rendered fill is the fill of the
// shapes it names (computed styles: a page rule that repaints them is caught), and the
// categories differ from one another.
async function checkColours(page, svgSel, shapeSel, legendSel, key) {
  const got = await page.$eval(svgSel, (svg, a) => {
    const fill = (e) => getComputedStyle(e).fill;
    const shapes = {}, legend = {};
    for (const e of svg.querySelectorAll(a.shapeSel)) (shapes[e.getAttribute(a.key)] = shapes[e.getAttribute(a.key)] || []).push(fill(e));
    for (const e of svg.querySelectorAll(a.legendSel)) legend[e.getAttribute(a.key)] = fill(e);
    return { shapes, legend };
  }, { shapeSel, legendSel, key });
  const names = Object.keys(got.shapes);
  assert.ok(names.length >= 3, svgSel + ": shapes by " + key + ": " + names);
  for (const n of names) {
    assert.ok(n in got.legend, `${svgSel}: ${n} has no legend entry`);
    for (const f of got.shapes[n]) assert.strictEqual(f, got.legend[n], `${svgSel}: ${n} drawn ${f}, legend ${got.legend[n]}`);
  }
  const distinct = new Set(Object.values(got.legend));
  assert.strictEqual(distinct.size, Object.keys(got.legend).length, svgSel + ": legend colours repeat: " + JSON.stringify(got.legend));
}

// No two labels of an SVG overlap, and each lies inside the SVG (rendered boxes).
async function checkLabels(page, svgSel, sel) {
  const boxes = await page.$eval(svgSel, (svg, sel) => {
    const s = svg.getBoundingClientRect();
    return { svg: { l: s.left, r: s.right, t: s.top, b: s.bottom },
             boxes: [...svg.querySelectorAll(sel)].map((t) => { const r = t.getBoundingClientRect();
               return { t: t.textContent, l: r.left, r: r.right, top: r.top, b: r.bottom }; }) };
  }, sel);
  const b = boxes.boxes;
  assert.ok(b.length >= 2, svgSel + ": labels " + sel + ": " + b.length);
  for (const x of b)
    assert.ok(x.l >= boxes.svg.l - 0.5 && x.r <= boxes.svg.r + 0.5, `${svgSel}: "${x.t}" outside the chart`);
  for (let i = 0; i < b.length; i++)
    for (let j = i + 1; j < b.length; j++) {
      const o = Math.min(b[i].r, b[j].r) - Math.max(b[i].l, b[j].l), v = Math.min(b[i].b, b[j].b) - Math.max(b[i].top, b[j].top);
      assert.ok(o <= 0.5 || v <= 0.5, `${svgSel}: "${b[i].t}" overlaps "${b[j].t}"`);
    }
  return b.length;
}

// The pane's verdict, settings and GPU lines are the CLI's.
async function checkPane(page, x, command, dir) {
  const h = cliHeader(command, dir);
  assert.strictEqual((await page.textContent("#settings-" + x)).trim(), h.settings, "settings line of " + x);
  assert.strictEqual((await page.textContent("#precision-" + x)).trim(), h.precision, "precision line of " + x);
  const gpu = (await page.textContent("#gpu-" + x)).trim();
  assert.strictEqual(gpu.split(" per GPU")[0], h.gpu.split(" per GPU")[0], "GPU line of " + x);
  assert.strictEqual((await page.textContent("#verdict-" + x)).trim(), cliVerdict(command, dir), "verdict of " + x);
}

async function resetForm(page) {
  if (await page.isChecked("#compare")) await press(page, "#compare");
  await press(page, "#reset");
  await press(page, "#src-preset");
  await page.fill("#preset", "llama-3.1-8b");
  await page.$eval("#calibration-json", (el) => { el.closest("details").open = true; });
  await page.fill("#calibration-json", "");
  await page.fill("#plan-gpus", "8");
  await page.fill("#plan-top", "5");
  await settle(page);
  const cmd = (await page.textContent("#command")).trim();
  assert.strictEqual(cmd, "llmmem estimate --preset " + (await page.inputValue("#preset")), "after reset: " + cmd);
}

const hfText = fs.readFileSync(path.join(ROOT, "test/data/scenarios/configs/dev/llama-3.2-1b.json"), "utf8");
const SCENARIOS = [
  { name: "defaults (llama-3.1-8b)", preset: "llama-3.1-8b", set: [] },
  { name: "ZeRO-3 on 8 x H200, full recompute, optimizer offload", preset: "llama-3.1-8b",
    set: [["micro_batch_size", 4], ["seq_len", 4096], ["activation_checkpointing", "full"], ["engine", "zero"],
          ["zero_stage", 3], ["offload_optimizer", "cpu"], ["num_gpus", 8], ["data_parallel_size", 8], ["gpu", "H200"]],
    planGpus: 16, planTop: 4, screenshot: "web-zero3.png" },
  { name: "does NOT fit although peak allocated is 1 GiB under the capacity", preset: "llama-3.2-1b",
    set: [["micro_batch_size", 8], ["seq_len", 2900]] },
  { name: "Megatron TP2 PP2 DP2 with sequence parallel", preset: "llama-3.1-8b",
    set: [["engine", "megatron"], ["tensor_parallel_size", 2], ["pipeline_parallel_size", 2], ["data_parallel_size", 2],
          ["sequence_parallel", "true"], ["distributed_optimizer", "true"], ["num_microbatches", 8], ["micro_batch_size", 2]] },
  { name: "vLLM inference, TP2, fp8 KV cache", preset: "llama-3.1-8b",
    set: [["mode", "inference"], ["runtime", "vllm"], ["max_num_seqs", 16], ["max_model_len", 2560],
          ["tensor_parallel_size", 2], ["gpu_memory_utilization", 0.85], ["kv_cache_dtype", "fp8"]],
    planGpus: 4, screenshot: "web-vllm.png" },
  { name: "vLLM on an L4: does not start at the model's 131,072 tokens", preset: "meta-llama/Llama-3.1-8B-Instruct",
    set: [["mode", "inference"], ["runtime", "vllm"], ["gpu", "L4"]], planGpus: 2 },
  { name: "HF generate inference, batch 8 (allocator timeline by phase)", preset: "llama-3.2-1b",
    set: [["mode", "inference"], ["batch_size", 8], ["prompt_len", 2048], ["decode_len", 256]], planGpus: 2,
    screenshot: "web-generate.png" },
  { name: "pasted config.json, QLoRA nf4 rank 16", hf: hfText,
    set: [["lora_rank", 16], ["qlora", "nf4"], ["lora_targets", "q_proj,k_proj,v_proj,o_proj"], ["micro_batch_size", 2]] },
  { name: "calibration profile", preset: "llama-3.1-8b",
    calibration: '{"components": {"activations": 1.25, "logits": 0.5}, "reserved_headroom": 2.0, "cuda_context_bytes": 500000000}',
    set: [["micro_batch_size", 2]] },
];

async function checkScenario(page, sc, idx) {
  await resetForm(page);
  if (sc.hf) {
    await press(page, "#src-hf");
    await page.fill("#hf-json", sc.hf);
  } else {
    await page.fill("#preset", sc.preset);
  }
  if (sc.calibration) {
    await page.$eval("#calibration-json", (el) => { el.closest("details").open = true; });
    await page.fill("#calibration-json", sc.calibration);
  }
  for (const [n, v] of sc.set) await setParam(page, n, v);
  await page.fill("#plan-gpus", String(sc.planGpus || 8));
  await page.fill("#plan-top", String(sc.planTop || 5));
  await settle(page);
  const state = await page.getAttribute("#status", "data-state");
  assert.strictEqual(state, "ok", "page status: " + (await page.textContent("#status")));

  const dir = path.join(OUT, "case" + idx);
  fs.mkdirSync(dir, { recursive: true });
  if (sc.hf) fs.writeFileSync(path.join(dir, "config.json"), sc.hf);
  if (sc.calibration) fs.writeFileSync(path.join(dir, "calibration.json"), sc.calibration);

  const pageResult = JSON.parse(await page.textContent("#result-json"));
  const command = (await page.textContent("#command")).trim();
  assert.strictEqual((await page.textContent("#command-a")).trim(), command, "pane command");
  fs.writeFileSync(path.join(dir, "command.txt"), command + "\n");
  // every parameter the test set appears in the command with its value
  for (const [n, v] of sc.set) assert.ok(command.includes("--" + n.replace(/_/g, "-") + " " + v), `command has ${n} ${v}: ${command}`);

  // 1. the command's numbers are the page's
  const cli = JSON.parse(runCommand(command + " --json", dir).stdout);
  sameJson(pageResult, cli, "page result and CLI result");

  // 2. the exported scenario gives the same numbers (without a calibration: not a scenario key)
  const scen = await page.textContent("#scenario-out");
  fs.writeFileSync(path.join(dir, "scenario.json"), scen);
  const viaScenario = JSON.parse(runCommand("llmmem estimate --scenario scenario.json" +
    (sc.calibration ? " --calibration calibration.json" : "") + " --json", dir).stdout);
  sameJson(viaScenario, cli, "exported scenario's result and CLI result");

  // 3. the verdict, the settings and the GPU are the CLI's; the chart agrees with the verdict
  await checkPane(page, "a", command, dir);
  await checkChart(page, "a", cli);

  // 4. the summary shows those numbers
  assert.strictEqual(await page.textContent("#fits"), cli.fits ? "yes" : "no");
  assert.strictEqual(await page.textContent("#peak-allocated"), both(cli.peak_allocated_bytes));
  assert.strictEqual(await page.textContent("#peak-reserved"), both(cli.peak_reserved_bytes));
  assert.strictEqual(await page.textContent("#cuda-context"), both(cli.cuda_context_bytes));
  assert.strictEqual(await page.textContent("#headroom"),
                     (cli.headroom_bytes >= 0 ? "headroom " : "short by ") + both(Math.abs(cli.headroom_bytes)));
  assert.strictEqual(await page.textContent("#utilization"), (cli.utilization * 100).toFixed(1) + " %");
  assert.strictEqual(await page.textContent("#gpus-needed"), cli.gpus_needed === 0 ? "none" : String(cli.gpus_needed));
  assert.ok(await page.$("#timeline svg path.line"), "timeline drawn");
  // the library's allocator timeline (llmmem_timeline, as `llmmem timeline`): one area per
  // category, the reserved and GPU lines; runs without one (multi-GPU engines, vLLM) say why
  const atState = await page.getAttribute("#alloc-timeline", "data-state");
  if (atState === "ok") {
    assert.strictEqual(await page.$$eval("#alloc-timeline svg path.area", (p) => p.length), 8, "one area per category");
    // the fills the browser paints are the legend's (a page style once painted them all one colour)
    await checkColours(page, "#alloc-timeline svg", ".area", "rect.legend", "data-category");
    // the x axis in phases, labels apart; the peak marked; the capacity line the GPU's memory
    await checkLabels(page, "#alloc-timeline svg", "text.phase-label, text.step-label");
    assert.ok(/^peak [0-9.]+ GiB allocated/.test(await page.textContent("#alloc-timeline svg text.peak-label")), "peak label");
    assert.strictEqual((await page.textContent("#alloc-timeline svg text.capacity-label")).split(" (")[0],
                       "GPU " + (cli.gpu_memory_bytes / GiB).toFixed(2) + " GiB", "the capacity line is the GPU's memory");
    assert.ok(await page.$("#alloc-timeline svg line.capacity"), "allocator timeline: GPU capacity line");
    assert.ok(await page.$("#alloc-timeline svg polyline.reserved"), "allocator timeline: reserved line");
    // the same chart as `llmmem timeline` on the command's inputs
    const tl = runCommand((await page.textContent("#command")).trim().replace(/^llmmem estimate/, "llmmem timeline"), dir).stdout;
    const title = tl.match(/<title>([^<]*)<\/title>/)[1];
    assert.strictEqual(await page.textContent("#alloc-timeline svg title"), title, "allocator timeline = CLI timeline");
    allocTimelines++;
  } else {
    assert.match(await page.textContent("#alloc-timeline"), /no allocation timeline/, "allocator timeline state");
  }
  if (sc.calibration) assert.strictEqual(cli.cuda_context_bytes, 500000000, "calibration applied");
  // vLLM: its capacity first, in the CLI's (vLLM's) words
  if (cli.max_model_len) {
    assert.ok(await page.isVisible("#capacity-a"), "vLLM capacity shown");
    const table = runCommand(command, dir).stdout.split("\n");
    const at = table.findIndex((l) => l.startsWith("vLLM, per GPU"));
    assert.ok(at >= 0, "the CLI's vLLM lines");
    const lines = [];
    for (let i = at; i < table.length && table[i].trim() !== ""; i++) lines.push(table[i].trim());
    const norm = (t) => t.replace(/\s+/g, " ").trim();
    // the CLI wraps vLLM's long error over lines; the page lets it flow
    assert.strictEqual(norm(await page.textContent("#capacity-a .vllm-says")), norm(lines.join(" ")), "vLLM lines = CLI's");
    const head = await page.textContent("#capacity-a");
    if (cli.fits) assert.ok(head.includes(g3(cli.kv_tokens) + " tokens of KV cache") && head.includes(cli.max_concurrency.toFixed(2)), head);
    else assert.ok(head.includes("vLLM would not start") && head.includes("--max-model-len " + cli.estimated_max_model_len), head);
    assert.strictEqual(await page.textContent("#card-fits .k"), "Does vLLM start?");
  } else {
    assert.ok(!(await page.isVisible("#capacity-a")), "no vLLM capacity for " + cli.mode);
  }

  // 5. planner: the table and the inverse answers are the CLI's
  const planLines = (await page.textContent("#plan-command")).trim().split("\n");
  const planJson = await page.getAttribute("#plan-table", "data-json");
  assert.ok(planJson, "plan computed: " + (await page.textContent("#plan-summary")));
  const cliPlan = JSON.parse(runCommand(planLines[0] + " --json", dir).stdout);
  sameJson(JSON.parse(planJson), cliPlan, "page plan and CLI plan");
  for (const n of cliPlan.notes || []) assert.ok((await page.textContent("#plan-summary")).includes("Note: " + n), "plan note: " + n);
  const rows = await page.$$eval("#plan-table tr", (trs) => trs.length - 1);
  assert.strictEqual(rows, cliPlan.layouts.length, "plan rows");
  const inv = JSON.parse(runCommand(planLines[1] + " --json", dir).stdout);
  const g = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  assert.strictEqual(await page.textContent("#max-batch"), g(inv.max_batch));
  assert.strictEqual(await page.textContent("#max-seq-len"), g(inv.max_seq_len));
  assert.strictEqual(await page.textContent("#min-gpus"), g(inv.min_gpus));

  // 6. advice: the list is the CLI's `llmmem advise --json`, and the first suggestion's
  // command line, run as the page shows it, gives the total the advice gives
  const adviceJson = await page.getAttribute("#advice", "data-json");
  assert.ok(adviceJson, "advice computed: " + (await page.textContent("#advice-summary")));
  const cliAdvice = JSON.parse(runCommand((await page.textContent("#advice-command")).trim() + " --json", dir).stdout);
  sameJson(JSON.parse(adviceJson), cliAdvice, "page advice and CLI advice");
  const shown = await page.$$eval("#advice li", (lis) => lis.length);
  assert.strictEqual(shown, Math.min(10, cliAdvice.suggestions.length), "advice rows");
  if (cliAdvice.suggestions.length) {
    const first = (await page.textContent("#advice li pre")).trim();
    const est = JSON.parse(runCommand(first + " --json", dir).stdout);
    assert.strictEqual(est.total_bytes_per_gpu, cliAdvice.suggestions[0].total_bytes_per_gpu, "advice command: " + first);
    assert.strictEqual(est.fits, cliAdvice.suggestions[0].fits, "advice command verdict: " + first);
  }

  if (sc.screenshot) await page.screenshot({ path: path.join(OUT, sc.screenshot), fullPage: true });
  return cli;
}


// A screenshot of the top of the page (the model box, the verdict, the chart) against the
// committed one, test/web/baseline/NAME.png: the figures (verdict, chart, numbers, version)
// are masked, so a change of the library's numbers does not fail it; what is compared is the
// layout. It fails when more than 2% of the pixels differ by more than a faint shade. No
// baseline: it fails and says where the new screenshot is (copy it there after reviewing
// it; UPDATE_WEB_BASELINE=1 writes it).
async function compareScreenshot(page, name) {
  const masks = ["#version", "#status", "#share-link", "#verdict-a", "#settings-a", "#precision-a", "#gpu-a", "#assumed-a",
                 "#chart-a", "#command-a", "#capacity-a", "#preset-doc", "#sticky-verdict", "#summary .v", "#summary .s",
                 "#keys dd"].map((s) => page.locator(s));
  const shot = await page.screenshot({ fullPage: false, mask: masks, maskColor: "#ff00ff", animations: "disabled", caret: "hide" });
  const file = path.join(OUT, "screen-" + name + ".png");
  fs.writeFileSync(file, shot);
  const base = path.join(ROOT, "test/web/baseline", name + ".png");
  if (process.env.UPDATE_WEB_BASELINE === "1") {
    fs.mkdirSync(path.dirname(base), { recursive: true });
    fs.copyFileSync(file, base);
    console.log("     wrote " + path.relative(ROOT, base));
    return;
  }
  assert.ok(fs.existsSync(base), `no baseline ${path.relative(ROOT, base)}: review ${file} and copy it there (or UPDATE_WEB_BASELINE=1)`);
  const diff = await page.evaluate(async ([a, b]) => {
    const img = async (d) => { const i = new Image(); i.src = "data:image/png;base64," + d; await i.decode(); return i; };
    const [x, y] = [await img(a), await img(b)];
    if (x.width !== y.width || x.height !== y.height) return { size: [x.width, x.height, y.width, y.height] };
    const c = document.createElement("canvas");
    c.width = x.width; c.height = x.height;
    const g = c.getContext("2d");
    g.drawImage(x, 0, 0);
    const p = g.getImageData(0, 0, c.width, c.height).data;
    g.clearRect(0, 0, c.width, c.height);
    g.drawImage(y, 0, 0);
    const q = g.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < p.length; i += 4)
      if (Math.max(Math.abs(p[i] - q[i]), Math.abs(p[i + 1] - q[i + 1]), Math.abs(p[i + 2] - q[i + 2])) > 48) n++;
    return { frac: n / (p.length / 4) };
  }, [shot.toString("base64"), fs.readFileSync(base).toString("base64")]);
  assert.ok(!diff.size, `${name}: screenshot size ${diff.size} differs from the baseline's`);
  assert.ok(diff.frac <= 0.02, `${name}: ${(diff.frac * 100).toFixed(2)}% of the pixels differ from ${path.relative(ROOT, base)} ` +
            `(see ${file}; if the change is wanted, copy it there)`);
}

// A page at url, settled; its errors and requests recorded.
async function open(browser, url, errors, requests) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(60000); // a machine shared with other work can be slow
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("request", (r) => requests.push(r.url()));
  page.on("crash", () => { errors.push("the page crashed"); console.log("     (page " + url.slice(0, 60) + " crashed)"); });
  page.on("close", () => console.log("     (page " + url.slice(0, 60) + " closed)"));
  await page.goto(url);
  await settle(page);
  return page;
}

(async () => {
  const exe = process.env.CHROMIUM || "/usr/bin/chromium";
  const browser = await chromium.launch({ executablePath: exe, args: ["--no-sandbox", "--disable-gpu"] });
  const errors = [], requests = [];
  let page;
  try {
    page = await open(browser, URL, errors, requests);
    assert.strictEqual(await page.getAttribute("#status", "data-state"), "ok", await page.textContent("#status"));
    assert.strictEqual((await page.textContent("#version")).trim(),
                       execFileSync(CLI_ABS, ["--version"], { encoding: "utf8" }).match(/library ([0-9.]+)/)[1]);
    ok("page loads from a static server, library " + (await page.textContent("#version")));
  } catch (e) {
    bad("page loads", e);
    await browser.close();
    console.log(`check-web: ${passed} passed, ${failed + 1} failed`);
    process.exit(1);
  }

  // Labels for people: no parameter name as a label, a unit where there is one, a line of help.
  try {
    const rows = await page.$$eval("label.param", (ls) => ls.map((l) => ({
      name: l.id.slice(4), label: l.querySelector(".lbl").textContent, help: l.querySelector(".help").textContent })));
    assert.ok(rows.length >= 50, "fields: " + rows.length);
    for (const r of rows) {
      assert.ok(!/_/.test(r.label) && r.label !== r.name, "label of " + r.name + ": " + r.label);
      assert.ok(r.help.trim().length > 0, "help of " + r.name);
    }
    // every parameter of the library has its label in labels.js (a new one gets a
    // readable name meanwhile; this says to write its label)
    const unlabelled = await page.evaluate(() => llmmemPage.params().filter((n) => !LlmmemLabels.known(n)));
    assert.deepStrictEqual(unlabelled, [], "parameters without a label in examples/web/labels.js");
    const lbl = (n) => rows.find((r) => r.name === n).label;
    assert.strictEqual(lbl("micro_batch_size"), "Micro-batch size (sequences per GPU)");
    assert.strictEqual(lbl("seq_len"), "Sequence length (tokens)");
    assert.strictEqual(lbl("bucket_cap_mb"), "DDP bucket size (MiB)");
    ok(`every field has a label for people and a line of help (${rows.length} fields)`);
  } catch (e) {
    bad("labels", e);
  }

  // Fields only where they apply; a hidden field's value is not applied.
  try {
    await resetForm(page);
    const shown = async (n) => page.$eval("#row-" + n, (r) => !r.hidden && !r.closest("[hidden]"));
    assert.ok(await shown("micro_batch_size") && !(await shown("batch_size")) && !(await shown("zero_stage")) &&
              !(await shown("max_model_len")) && !(await shown("tensor_parallel_size")), "training, single");
    await setParam(page, "engine", "zero");
    assert.ok(await shown("zero_stage") && !(await shown("offload_param")), "zero: the stage; offload_param at stage 3");
    await setParam(page, "zero_stage", 3);
    assert.ok(await shown("offload_param"), "zero stage 3: offload_param");
    await setParam(page, "engine", "ddp");
    await settle(page);
    assert.ok(!(await shown("zero_stage")) && await shown("bucket_cap_mb"), "ddp");
    const cmd = (await page.textContent("#command")).trim();
    assert.ok(!/--zero-stage/.test(cmd), "a hidden field is not applied: " + cmd);
    await setParam(page, "mode", "inference");
    assert.ok(await shown("batch_size") && !(await shown("micro_batch_size")) && !(await shown("engine")) &&
              !(await shown("optimizer")) && !(await shown("max_model_len")), "inference (hf)");
    await setParam(page, "runtime", "vllm");
    assert.ok(await shown("max_model_len") && await shown("gpu_memory_utilization"), "vllm");
    ok("fields show only where they apply (mode, engine, ZeRO stage, runtime); hidden ones are not applied");
  } catch (e) {
    bad("fields where they apply", e);
  }

  for (let i = 0; i < SCENARIOS.length; i++) {
    try {
      const r = await checkScenario(page, SCENARIOS[i], i);
      ok(`${SCENARIOS[i].name}: page == CLI (total ${both(r.total_bytes_per_gpu)}, fits ${r.fits})`);
    } catch (e) {
      bad(SCENARIOS[i].name, e);
    }
  }

  // The link holds the settings: a fresh page opened with it shows the same result.
  try {
    await resetForm(page);
    for (const [n, v] of SCENARIOS[1].set) await setParam(page, n, v);
    await settle(page);
    const url = page.url();
    assert.ok(/zero_stage=3/.test(url) && /gpu=H200/.test(url), "link: " + url);
    assert.strictEqual(await page.inputValue("#share-link"), url);
    const want = JSON.parse(await page.textContent("#result-json"));
    const fresh = await open(browser, url, errors, requests);
    assert.strictEqual(await fresh.inputValue("#p-zero_stage"), "3");
    sameJson(JSON.parse(await fresh.textContent("#result-json")), want, "result from the link and the page's");
    await fresh.close();
    ok("the link holds the settings: " + url.slice(url.indexOf("#")));
  } catch (e) {
    bad("link", e);
  }

  // A config.json dropped on the page, a scenario opened, a config.json pasted.
  try {
    await resetForm(page);
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], "config.json", { type: "application/json" }));
      document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, hfText);
    await page.waitForFunction(() => document.getElementById("src-hf").checked);
    await settle(page);
    let command = (await page.textContent("#command")).trim();
    assert.ok(command.startsWith("llmmem estimate --hf-config config.json"), command);
    const dir = path.join(OUT, "dropped");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "config.json"), hfText);
    sameJson(JSON.parse(await page.textContent("#result-json")), JSON.parse(runCommand(command + " --json", dir).stdout),
             "dropped config.json: page and CLI");
    assert.ok(/config\.json/.test(await page.textContent("#drop-msg")));

    const scenFile = path.join(dir, "scenario.json");
    fs.writeFileSync(scenFile, JSON.stringify({ model: { preset: "qwen2.5-7b" }, training: { micro_batch_size: 2, seq_len: 1024 } }));
    await page.setInputFiles("#file", scenFile);
    await page.waitForFunction(() => document.getElementById("p-micro_batch_size").value === "2");
    await settle(page);
    command = (await page.textContent("#command")).trim();
    assert.strictEqual(command, "llmmem estimate --preset qwen2.5-7b --micro-batch-size 2 --seq-len 1024");

    await resetForm(page);
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.setData("text/plain", text);
      document.body.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, hfText);
    await page.waitForFunction(() => document.getElementById("src-hf").checked);
    await settle(page);
    assert.ok((await page.textContent("#command")).startsWith("llmmem estimate --hf-config config.json"));
    ok("a config.json dropped or pasted becomes the model; a scenario file opened fills the form");
  } catch (e) {
    bad("drop / open / paste", e);
  }

  // Two scenarios side by side, each the CLI's.
  try {
    await resetForm(page);
    await page.fill("#hf-json", "");
    await press(page, "#src-preset");
    await page.fill("#preset", "llama-3.1-8b");
    await setParam(page, "micro_batch_size", 4);
    await setParam(page, "activation_checkpointing", "full");
    await press(page, "#compare");
    await settle(page);
    await press(page, "#copy-to-b");
    await settle(page);
    assert.strictEqual(await page.getAttribute("#tab-b", "aria-selected"), "true", "editing B");
    await setParam(page, "gpu", "H200");
    await setParam(page, "micro_batch_size", 8);
    await settle(page);
    const dir = path.join(OUT, "compare");
    fs.mkdirSync(dir, { recursive: true });
    const cmds = {};
    for (const x of ["a", "b"]) {
      cmds[x] = (await page.textContent("#command-" + x)).trim();
      const cli = JSON.parse(runCommand(cmds[x] + " --json", dir).stdout);
      await checkPane(page, x, cmds[x], dir);
      await checkChart(page, x, cli);
    }
    assert.strictEqual(cmds.a, "llmmem estimate --preset llama-3.1-8b --micro-batch-size 4 --activation-checkpointing full");
    assert.strictEqual(cmds.b, "llmmem estimate --preset llama-3.1-8b --micro-batch-size 8 --activation-checkpointing full --gpu H200");
    assert.ok(/compare=1/.test(page.url()) && /b\.gpu=H200/.test(page.url()), "link holds both: " + page.url());
    await page.screenshot({ path: path.join(OUT, "compare.png"), fullPage: false });
    ok("two scenarios side by side: " + cmds.a + " | " + cmds.b);
  } catch (e) {
    bad("two scenarios", e);
  }


  // The model box takes a Hugging Face id: a preset's is that preset (the page says which),
  // the command and the link carry the id, an unknown one is the library's error with the
  // nearest presets, and no figure stays on the page.
  try {
    await resetForm(page);
    await page.fill("#preset", "meta-llama/Llama-3.1-8B-Instruct");
    await setParam(page, "micro_batch_size", 2);
    await settle(page);
    const command = (await page.textContent("#command")).trim();
    assert.strictEqual(command, "llmmem estimate --preset meta-llama/Llama-3.1-8B-Instruct --micro-batch-size 2");
    const dir = path.join(OUT, "hub");
    fs.mkdirSync(dir, { recursive: true });
    const cli = JSON.parse(runCommand(command + " --json", dir).stdout);
    sameJson(JSON.parse(await page.textContent("#result-json")), cli, "Hub id: page and CLI");
    assert.ok(/the built-in preset llama-3\.1-8b/.test(await page.textContent("#preset-doc")), await page.textContent("#preset-doc"));
    const url = page.url();
    assert.ok(url.includes("preset=meta-llama%2FLlama-3.1-8B-Instruct"), "link: " + url);
    const fresh = await open(browser, url, errors, requests);
    assert.strictEqual(await fresh.inputValue("#preset"), "meta-llama/Llama-3.1-8B-Instruct");
    sameJson(JSON.parse(await fresh.textContent("#result-json")), cli, "the shared link's result");
    await fresh.close();
    await page.fill("#preset", "acme/not-a-model");
    await settle(page);
    assert.strictEqual(await page.getAttribute("#status", "data-state"), "error");
    const msg = await page.textContent("#status");
    assert.ok(/did you mean/.test(msg) && /config\.json/.test(msg), msg);
    assert.ok(await page.$("#preset.invalid"), "the model box marked");
    assert.strictEqual(await page.textContent("#fits"), "–", "no verdict for an unknown model");
    ok("Hugging Face id in the model box: " + command + "; shared link round-trips; unknown id: nearest presets");
  } catch (e) {
    bad("Hugging Face id", e);
  }

  // A phone: one column, nothing wider than the screen, the verdict and the capacity
  // readable; its screenshot and the desktop's compared with the committed ones.
  try {
    await resetForm(page);
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    phone.on("pageerror", (e) => errors.push(e.message));
    await phone.goto(URL + "#preset=llama-3.1-8b&mode=inference&runtime=vllm&gpu=L4");
    await settle(phone);
    const wide = await phone.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      const over = [...document.querySelectorAll("body *")].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.right > vw + 1 && !e.closest(".scroll, details:not([open])");
      }).map((e) => e.id || e.className || e.tagName);
      return { scroll: document.documentElement.scrollWidth, vw, over: over.slice(0, 8) };
    });
    assert.ok(wide.scroll <= wide.vw + 1 && wide.over.length === 0, "wider than the phone: " + JSON.stringify(wide));
    assert.ok(await phone.isVisible("#verdict-a") && await phone.isVisible("#capacity-a"), "verdict and capacity shown");
    await phone.screenshot({ path: path.join(OUT, "web-phone.png"), fullPage: true });
    const desk = await browser.newPage({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 });
    desk.on("pageerror", (e) => errors.push(e.message));
    await desk.goto(URL + "#preset=llama-3.1-8b&micro_batch_size=2");
    await settle(desk);
    for (const [pg, name] of [[phone, "phone"], [desk, "desktop"]]) {
      await pg.evaluate(() => window.scrollTo(0, 0));
      await compareScreenshot(pg, name);
    }
    await phone.close();
    await desk.close();
    ok("phone layout: nothing wider than 390 px; screenshots match test/web/baseline (desktop, phone)");
  } catch (e) {
    bad("phone layout / screenshots", e);
  }

  try {
    assert.ok(allocTimelines > 0, "no scenario drew the allocator timeline");
    ok(`allocator timeline drawn for ${allocTimelines} scenarios, as llmmem timeline draws it`);
  } catch (e) {
    bad("allocator timeline", e);
  }

  // A bad value: the page shows the library's message, the CLI refuses the same flag.
  try {
    await resetForm(page);
    await setParam(page, "micro_batch_size", 0);
    await settle(page);
    assert.strictEqual(await page.getAttribute("#status", "data-state"), "error");
    const msg = await page.textContent("#status");
    assert.ok(/micro_batch_size/.test(msg) && /OUT_OF_RANGE/.test(msg), msg);
    assert.ok(await page.$("#p-micro_batch_size.invalid"), "field marked");
    // nothing of the last good result stays: no verdict, no cards, no plan
    assert.strictEqual(await page.textContent("#fits"), "–", "Fits card cleared");
    assert.strictEqual(await page.textContent("#total"), "–", "total card cleared");
    assert.strictEqual(await page.textContent("#result-json"), "", "result cleared");
    assert.strictEqual(await page.getAttribute("#verdict-a", "class"), "verdict bad");
    assert.ok(/OUT_OF_RANGE/.test(await page.textContent("#verdict-a")), "the verdict is the error");
    assert.strictEqual(await page.textContent("#plan-table"), "", "plan cleared");
    let r = runCommand("llmmem estimate --preset llama-3.1-8b --micro-batch-size 0", OUT, true);
    assert.notStrictEqual(r.status, 0);
    assert.ok(/OUT_OF_RANGE/.test(r.stderr), r.stderr);
    await page.$eval("#p-micro_batch_size", (el) => { el.type = "text"; });
    await setParam(page, "micro_batch_size", "1.5");
    await settle(page);
    assert.ok(/whole number/.test(await page.textContent("#status")), await page.textContent("#status"));
    r = runCommand("llmmem estimate --preset llama-3.1-8b --micro-batch-size 1.5", OUT, true);
    assert.strictEqual(r.status, 2, r.stderr);
    await page.$eval("#p-micro_batch_size", (el) => { el.type = "number"; });
    ok("bad values: the page and the CLI refuse micro_batch_size 0 and 1.5");
  } catch (e) {
    bad("bad value", e);
  }

  // Loading a scenario JSON fills the form.
  try {
    await resetForm(page);
    await page.$eval("#scenario-json", (el) => { el.closest("details").open = true; });
    await page.fill("#scenario-json", JSON.stringify({
      model: { preset: "llama-3.1-8b" }, mode: "training",
      training: { micro_batch_size: 3, seq_len: 1024, activation_checkpointing: "selective" },
      engine: { type: "fsdp", version: 2 }, parallelism: { dp: 4 }, hardware: { gpu: "H200" } }));
    await press(page, "#scenario-load");
    await settle(page);
    assert.strictEqual(await page.inputValue("#p-micro_batch_size"), "3");
    assert.strictEqual(await page.inputValue("#p-engine"), "fsdp");
    assert.strictEqual(await page.inputValue("#p-gpu"), "H200");
    const command = (await page.textContent("#command")).trim();
    const cli = JSON.parse(runCommand(command + " --json", OUT).stdout);
    sameJson(JSON.parse(await page.textContent("#result-json")), cli, "page result and CLI result");
    ok("scenario JSON loads into the form: " + command);
  } catch (e) {
    bad("scenario load", e);
  }

  // Copy and export buttons work without the network.
  try {
    await press(page, "#copy-command");
    await page.waitForFunction(() => document.getElementById("copy-msg").textContent !== "");
    const [dl] = await Promise.all([page.waitForEvent("download"), press(page, "#export-json")]);
    const file = path.join(OUT, "exported-scenario.json");
    await dl.saveAs(file);
    const exported = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.deepStrictEqual(exported, JSON.parse(await page.textContent("#scenario-out")));
    const foreign = requests.filter((u) => !u.startsWith(new global.URL(URL).origin) && !u.startsWith("blob:") && !u.startsWith("data:"));
    assert.deepStrictEqual(foreign, [], "no request leaves the local server");
    ok("copy command, export JSON download; no external request");
  } catch (e) {
    bad("copy/export", e);
  }

  try {
    await resetForm(page);
    await page.screenshot({ path: path.join(OUT, "web.png"), fullPage: true });
    assert.deepStrictEqual(errors, [], "no page errors");
    ok("screenshots in " + OUT + " (web.png, web-zero3.png, web-vllm.png, compare.png)");
  } catch (e) {
    bad("page errors", e);
  }
  await browser.close();
  console.log(`check-web: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
