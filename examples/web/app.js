/* The page of examples/web: a form generated from the library's parameter table, the
 * estimate, the planner, charts, and the equivalent llmmem command / scenario JSON.
 * Every number comes from libllmmem (llmmem-api.js); this file only lays it out. */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const GiB = 1073741824;
  let api = null;
  let PARAMS = [];
  let seq = 0;
  let last = null; // {model, settings, result, config}

  // Parameter sections: the hundreds of the parameter ids (include/llmmem.h).
  const SECTIONS = {
    1: "Workload", 2: "Precision", 3: "Optimizer", 4: "Activations", 5: "LoRA / QLoRA",
    6: "Engine", 7: "Parallelism", 8: "Serving runtime (inference)", 9: "GPU",
    10: "Vision inputs",
  };
  // Shown outside the "more" fold of their section.
  const PRIMARY = new Set([
    "mode", "micro_batch_size", "seq_len", "gradient_accumulation_steps", "batch_size", "prompt_len",
    "decode_len", "param_dtype", "compute_dtype", "master_weights", "weights_format", "kv_cache_dtype",
    "optimizer", "optimizer_impl", "attention", "activation_checkpointing", "loss", "lora_rank", "qlora",
    "engine", "zero_stage", "offload_optimizer", "offload_param", "sharding_strategy", "fsdp_version",
    "distributed_optimizer", "num_gpus", "data_parallel_size", "tensor_parallel_size",
    "pipeline_parallel_size", "context_parallel_size", "expert_parallel_size", "sequence_parallel",
    "runtime", "gpu_memory_utilization", "max_num_seqs", "max_model_len", "gpu", "gpu_memory_bytes",
  ]);
  const PALETTE = ["#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d", "#f1ce63",
                   "#499894", "#86bcb6", "#e15759", "#ff9d9a", "#79706e", "#d37295"];

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  // As the CLI's tables: GiB and GB with two decimals.
  const gib = (b) => (b / GiB).toFixed(2) + " GiB";
  const gb = (b) => (b / 1e9).toFixed(2) + " GB";
  const both = (b) => gib(b) + " / " + gb(b);
  const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

  function setStatus(state, text) {
    const s = $("status");
    s.dataset.state = state;
    s.textContent = text;
  }

  // ---- the form ----------------------------------------------------------------------
  function widget(p) {
    const id = "p-" + p.name;
    let input;
    if (p.type === "enum") {
      input = `<select id="${id}" data-param="${p.name}">` +
        p.values.map((v) => `<option${v === p.defaultText ? " selected" : ""}>${esc(v)}</option>`).join("") + "</select>";
    } else if (p.type === "bool") {
      input = `<select id="${id}" data-param="${p.name}"><option${p.defaultText === "true" ? " selected" : ""}>true</option>` +
        `<option${p.defaultText === "false" ? " selected" : ""}>false</option></select>`;
    } else if (p.type === "i64" || p.type === "f64") {
      const step = p.type === "f64" ? "any" : "1";
      input = `<input type="number" id="${id}" data-param="${p.name}" step="${step}" value="${esc(p.defaultText)}"` +
        (p.bounds ? ` min="${p.bounds[0]}" max="${p.bounds[1]}"` : "") + ">";
    } else {
      input = `<input type="text" id="${id}" data-param="${p.name}" value="${esc(p.defaultText)}">`;
    }
    return `<label class="param" title="${esc(p.doc || "")}"><span>${esc(p.name)}</span>${input}</label>`;
  }

  function buildForm() {
    const groups = new Map();
    for (const p of PARAMS) {
      const g = Math.floor(p.id / 100);
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(p);
    }
    let html = "";
    for (const [g, ps] of groups) {
      const prim = ps.filter((p) => PRIMARY.has(p.name));
      const rest = ps.filter((p) => !PRIMARY.has(p.name));
      html += `<fieldset id="sec-${g}"><legend>${esc(SECTIONS[g] || "Other")}</legend>` + prim.map(widget).join("");
      if (rest.length)
        html += `<details><summary>${rest.length} more</summary>${rest.map(widget).join("")}</details>`;
      html += "</fieldset>";
    }
    $("params").innerHTML = html;
  }

  function paramValue(p) {
    const el = $("p-" + p.name);
    return el ? el.value.trim() : p.defaultText;
  }

  // Ordered settings that differ from the defaults: [[name, text], ...]
  function settings() {
    const out = [];
    for (const p of PARAMS) {
      const v = paramValue(p);
      if (v !== "" && v !== p.defaultText) out.push([p.name, v]);
    }
    return out;
  }

  function modelSource() {
    const m = $("src-hf").checked ? { hfJson: $("hf-json").value } : { preset: $("preset").value };
    const cal = $("calibration-json").value.trim();
    if (cal) m.calibration = cal;
    return m;
  }

  // ---- command and scenario ---------------------------------------------------------------
  const shq = (s) => (/^[A-Za-z0-9._,\/:=+@%-]+$/.test(s) ? s : "'" + String(s).replace(/'/g, "'\\''") + "'");
  function commandArgs(model, sets) {
    const a = [];
    if (model.preset) a.push("--preset", shq(model.preset));
    else a.push("--hf-config", "config.json");
    if (model.calibration) a.push("--calibration", "calibration.json");
    for (const [n, v] of sets) a.push("--" + n.replace(/_/g, "-"), shq(v));
    return a;
  }
  function scenarioObject(model, sets, config) {
    const s = { model: model.preset ? { preset: model.preset } : { hf_config: "config.json" } };
    if (sets.length) {
      s.params = {};
      for (const [n] of sets) s.params[n] = config[n];
    }
    return s;
  }

  // ---- charts -------------------------------------------------------------------------------
  function phasesOf(r) {
    return Object.keys(r.phases).filter((ph) => r.phases[ph].total > 0 || Object.keys(r.phases).length <= 3);
  }

  // 1, 2 or 5 times a power of ten, at least x
  function niceStep(x) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(x, 1e-9))));
    for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
    return 10 * p;
  }

  function barChart(r) {
    const comps = Object.keys(r.components);
    const phases = phasesOf(r);
    const cap = r.gpu_memory_bytes;
    const ymax = Math.max(cap, r.total_bytes_per_gpu, ...phases.map((ph) => r.phases[ph].total)) * 1.08;
    const W = 640, H = 300, L = 70, B = 30, T = 10, bw = Math.min(90, (W - L - 180) / phases.length * 0.6);
    const step = (W - L - 180) / phases.length;
    const y = (v) => T + (H - T - B) * (1 - v / ymax);
    let svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="bytes per phase and component">`;
    const tick = niceStep(ymax / GiB / 5);
    for (let v = 0; v <= ymax / GiB; v += tick) {
      const yy = y(v * GiB);
      svg += `<line x1="${L}" x2="${W - 180}" y1="${yy}" y2="${yy}" class="grid"/><text x="${L - 6}" y="${yy + 4}" class="ax" text-anchor="end">${+v.toFixed(3)} GiB</text>`;
    }
    phases.forEach((ph, i) => {
      let acc = 0;
      const x = L + step * i + (step - bw) / 2;
      comps.forEach((c, ci) => {
        const v = r.phases[ph].components[c];
        if (!v) return;
        svg += `<rect x="${x}" y="${y(acc + v)}" width="${bw}" height="${Math.max(0, y(acc) - y(acc + v))}" fill="${PALETTE[ci % PALETTE.length]}"><title>${esc(ph)} / ${esc(c)}: ${both(v)}</title></rect>`;
        acc += v;
      });
      const peak = ph === r.peak_phase;
      svg += `<text x="${x + bw / 2}" y="${H - B + 16}" text-anchor="middle" class="ax${peak ? " peak" : ""}">${esc(ph)}</text>`;
      svg += `<text x="${x + bw / 2}" y="${y(acc) - 4}" text-anchor="middle" class="val">${(acc / GiB).toFixed(1)}</text>`;
    });
    svg += `<line x1="${L}" x2="${W - 180}" y1="${y(cap)}" y2="${y(cap)}" class="cap"/><text x="${W - 182}" y="${y(cap) - 4}" text-anchor="end" class="cap-t">capacity ${gib(cap)}</text>`;
    let ly = T + 4;
    comps.forEach((c, ci) => {
      if (!phases.some((ph) => r.phases[ph].components[c])) return;
      svg += `<rect x="${W - 170}" y="${ly}" width="10" height="10" fill="${PALETTE[ci % PALETTE.length]}"/><text x="${W - 155}" y="${ly + 9}" class="ax">${esc(c)}</text>`;
      ly += 15;
    });
    return svg + "</svg>";
  }

  // Live bytes through one step: the phases in order, each at its peak, back to what stays
  // allocated between steps (persistent_bytes); the capacity less the CUDA context and the
  // allocator's reserve above the peak is the line not to cross.
  function timeline(r) {
    const phases = phasesOf(r);
    const pts = [["start", r.persistent_bytes]].concat(phases.map((ph) => [ph, r.phases[ph].total]));
    if (r.mode === "training") pts.push(["next step", r.persistent_bytes]);
    const cap = r.gpu_memory_bytes;
    const W = 640, H = 200, L = 70, B = 30, T = 14;
    const ymax = Math.max(cap, ...pts.map((p) => p[1])) * 1.08;
    const y = (v) => T + (H - T - B) * (1 - v / ymax);
    const seg = (W - L - 20) / pts.length;
    let path = "", svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="live bytes through the step">`;
    pts.forEach(([ph, v], i) => {
      const x0 = L + seg * i, x1 = x0 + seg;
      path += (i ? `L${x0},${y(v)}` : `M${x0},${y(v)}`) + `L${x1},${y(v)}`;
      const peak = ph === r.peak_phase;
      svg += `<text x="${(x0 + x1) / 2}" y="${H - B + 16}" text-anchor="middle" class="ax${peak ? " peak" : ""}">${esc(ph)}</text>`;
      svg += `<text x="${(x0 + x1) / 2}" y="${y(v) - 4}" text-anchor="middle" class="val">${(v / GiB).toFixed(1)}</text>`;
    });
    const area = path + `L${L + seg * pts.length},${y(0)}L${L},${y(0)}Z`;
    svg += `<path d="${area}" class="area"/><path d="${path}" class="line"/>`;
    svg += `<line x1="${L}" x2="${W - 20}" y1="${y(cap)}" y2="${y(cap)}" class="cap"/><text x="${W - 22}" y="${y(cap) - 4}" text-anchor="end" class="cap-t">capacity</text>`;
    svg += `<text x="${L - 6}" y="${y(0) + 4}" class="ax" text-anchor="end">0</text><text x="${L - 6}" y="${y(cap) + 4}" class="ax" text-anchor="end">${(cap / GiB).toFixed(0)} GiB</text>`;
    return svg + "</svg>";
  }

  // ---- rendering ------------------------------------------------------------------------------
  function renderResult(out, model, sets) {
    const r = out.result;
    $("fits").textContent = r.fits ? "yes" : "no";
    $("card-fits").className = "card " + (r.fits ? "ok" : "bad");
    $("headroom").textContent = (r.headroom_bytes >= 0 ? "headroom " : "short by ") + both(Math.abs(r.headroom_bytes));
    $("total").textContent = gib(r.total_bytes_per_gpu);
    $("capacity").textContent = "of " + both(r.gpu_memory_bytes);
    $("utilization").textContent = (r.utilization * 100).toFixed(1) + " %";
    $("peak-phase").textContent = "peak in " + r.peak_phase + (r.pipeline_stages > 1 ? ", stage " + r.peak_stage : "");
    $("gpus-needed").textContent = String(r.gpus_needed);
    $("num-gpus").textContent = "layout uses " + r.num_gpus;
    $("peak-allocated").textContent = both(r.peak_allocated_bytes);
    $("peak-reserved").textContent = both(r.peak_reserved_bytes);
    $("cuda-context").textContent = both(r.cuda_context_bytes);
    $("weights-bytes").textContent = both(r.weights_bytes);
    $("persistent").textContent = both(r.persistent_bytes);
    $("kv-cache").textContent = both(r.kv_cache_bytes);
    $("params-count").textContent = group(r.params);
    $("trainable-count").textContent = group(r.trainable_params);
    $("host-bytes").textContent = both(r.host_bytes);
    $("nvme-bytes").textContent = both(r.nvme_bytes);
    $("chart").innerHTML = barChart(r);
    $("timeline").innerHTML = timeline(r);
    if (window.LlmmemAllocTimeline) LlmmemAllocTimeline.render(api, model, sets);

    const phases = Object.keys(r.phases);
    let t = "<tr><th>component</th>" + phases.map((p) => `<th>${esc(p)}</th>`).join("") + "</tr>";
    for (const c of Object.keys(r.components))
      t += `<tr><td>${esc(c)}</td>` + phases.map((p) => `<td class="num" title="${group(r.phases[p].components[c])} bytes">${(r.phases[p].components[c] / GiB).toFixed(3)}</td>`).join("") + "</tr>";
    t += "<tr><th>total (GiB)</th>" + phases.map((p) => `<th class="num">${(r.phases[p].total / GiB).toFixed(3)}</th>`).join("") + "</tr>";
    $("breakdown").innerHTML = t;
    $("terms").innerHTML = "<tr><th>term</th><th>bytes</th><th>formula and source</th></tr>" +
      (r.terms || []).map((x) => `<tr><td>${esc(x.name)}</td><td class="num">${group(x.bytes)}</td><td>${esc(x.formula)}</td></tr>`).join("");
    const notes = (r.notes || []).concat((out.model.notes || []).map((n) => "model: " + n));
    $("notes").innerHTML = notes.map((n) => `<li>${esc(n)}</li>`).join("");
    $("model-json").textContent = JSON.stringify(out.model, null, 2);
    $("result-json").textContent = JSON.stringify(r, null, 2);

    const args = commandArgs(model, sets);
    $("command").textContent = "llmmem estimate " + args.join(" ");
    $("scenario-out").textContent = JSON.stringify(scenarioObject(model, sets, out.config), null, 2);
    $("export-hf").hidden = !!model.preset;
  }

  function renderPlan(model, sets) {
    const n = parseInt($("plan-gpus").value, 10) || 1;
    const k = Math.min(64, Math.max(1, parseInt($("plan-top").value, 10) || 5));
    const args = commandArgs(model, sets);
    $("plan-command").textContent = "llmmem plan " + args.join(" ") + " --gpus " + n + " --top " + k + "\n" +
      "llmmem plan " + args.join(" ") + " --max-batch --max-seq-len --min-gpus";
    try {
      const inv = api.inverse(model, sets);
      for (const [key, id] of [["max_batch", "max-batch"], ["max_seq_len", "max-seq-len"], ["min_gpus", "min-gpus"]]) {
        $(id).textContent = inv[key] == null ? "(" + inv[key + "_error"] + ")" : group(inv[key]);
      }
    } catch (e) {
      $("max-batch").textContent = $("max-seq-len").textContent = $("min-gpus").textContent = "";
    }
    let p;
    try {
      p = api.plan(model, sets, n, k);
    } catch (e) {
      $("plan-summary").textContent = "planner: " + e.message;
      $("plan-table").innerHTML = "";
      return;
    }
    const rej = Object.entries(p.rejected).map(([a, b]) => a + " " + group(b)).join(", ");
    $("plan-summary").textContent = `${group(p.candidates)} candidate layouts of ${p.num_gpus} x ${p.gpu}: ` +
      `${group(p.feasible)} fit; rejected ${rej}. Ranked by the step-time model (docs/planner.md).`;
    const train = p.mode === "training";
    let h = "<tr><th>#</th>" + (train ? "<th>engine</th><th>dp</th><th>tp</th><th>pp</th><th>cp</th><th>ep</th><th>options</th><th>recompute</th><th>mbs</th><th>accum</th>"
                                      : "<th>tp</th><th>replicas</th><th>batch</th>") +
      "<th>peak allocated</th><th>total per GPU</th><th>step (s)</th></tr>";
    for (const l of p.layouts) {
      const opts = [];
      if (l.zero_stage != null && l.engine !== "megatron") opts.push("zero" + l.zero_stage);
      if (l.sharding_strategy) opts.push(l.sharding_strategy);
      if (l.offload_optimizer && l.offload_optimizer !== "none") opts.push("offload-opt " + l.offload_optimizer);
      if (l.offload_param && l.offload_param !== "none") opts.push("offload-param " + l.offload_param);
      if (l.distributed_optimizer) opts.push("dist-opt");
      if (l.sequence_parallel) opts.push("sp");
      h += `<tr><td>${l.rank}</td>` + (train
        ? `<td>${esc(l.engine)}</td><td>${l.dp}</td><td>${l.tp}</td><td>${l.pp}</td><td>${l.cp}</td><td>${l.ep}</td><td>${esc(opts.join(" "))}</td><td>${esc(l.activation_checkpointing)}</td><td>${l.micro_batch_size}</td><td>${l.gradient_accumulation_steps}</td>`
        : `<td>${l.tp}</td><td>${l.replicas}</td><td>${l.batch_size}</td>`) +
        `<td class="num">${gib(l.peak_allocated_bytes)}</td><td class="num">${gib(l.total_bytes_per_gpu)}</td><td class="num">${l.step_time_s.toFixed(4)}</td></tr>`;
    }
    $("plan-table").innerHTML = h;
    $("plan-table").dataset.json = JSON.stringify(p);
  }

  function compute() {
    if (!api) return;
    const model = modelSource();
    const sets = settings();
    const my = ++seq;
    for (const el of document.querySelectorAll("[data-param]")) el.classList.remove("invalid");
    try {
      const out = api.estimate(model, sets);
      last = { model, settings: sets, result: out.result, config: out.config };
      renderResult(out, model, sets);
      renderPlan(model, sets);
      $("status").dataset.seq = String(my);
      setStatus("ok", `Estimated with libllmmem ${api.version} (WebAssembly).`);
    } catch (e) {
      if (e.param && $("p-" + e.param)) $("p-" + e.param).classList.add("invalid");
      $("status").dataset.seq = String(my);
      setStatus("error", e.message);
    }
  }

  let timer = 0;
  function schedule() {
    clearTimeout(timer);
    $("status").dataset.state = "pending";
    timer = setTimeout(compute, 120);
  }

  // ---- buttons ----------------------------------------------------------------------------------
  function download(name, text) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }

  async function copyCommand() {
    const text = $("command").textContent;
    try {
      await navigator.clipboard.writeText(text);
      $("copy-msg").textContent = "copied";
    } catch (e) { // no clipboard permission (plain http, headless): select it instead
      const range = document.createRange();
      range.selectNodeContents($("command"));
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      $("copy-msg").textContent = "selected: press Ctrl+C";
    }
  }

  function loadScenario() {
    const text = $("scenario-json").value;
    let js;
    try {
      js = JSON.parse(text);
    } catch (e) {
      $("scenario-msg").textContent = "not JSON: " + e.message;
      return;
    }
    let cfg;
    try {
      cfg = api.scenarioConfig(text);
    } catch (e) {
      $("scenario-msg").textContent = e.message;
      return;
    }
    for (const p of PARAMS) {
      const el = $("p-" + p.name);
      if (el && cfg[p.name] !== undefined) el.value = String(cfg[p.name]);
    }
    const m = js.model;
    const preset = typeof m === "string" ? m : m && m.preset;
    if (preset) {
      $("preset").value = preset;
      $("src-preset").checked = true;
      $("scenario-msg").textContent = "loaded";
    } else if (m && m.hf_config) {
      $("src-hf").checked = true;
      $("scenario-msg").textContent = "loaded; paste the content of " + m.hf_config + " above";
    } else {
      $("scenario-msg").textContent = "loaded the configuration; this page takes a preset or a pasted config.json as the model";
    }
    schedule();
  }

  // ---- start ------------------------------------------------------------------------------------
  async function main() {
    try {
      api = await LlmmemApi.load();
    } catch (e) {
      setStatus("error", "Could not load the library (build it with make web): " + e.message);
      return;
    }
    $("version").textContent = api.version;
    $("version2").textContent = api.version;
    fetch("cjson-version.txt").then((r) => (r.ok ? r.text() : "")).then((t) => ($("cjson-version").textContent = t.trim())).catch(() => {});
    PARAMS = api.params();
    const presets = api.presets();
    $("preset").innerHTML = presets.map((p) => `<option title="${esc(p.description)}">${esc(p.name)}</option>`).join("");
    if (presets.some((p) => p.name === "llama-3.1-8b")) $("preset").value = "llama-3.1-8b";
    const showDoc = () => {
      const p = presets.find((x) => x.name === $("preset").value);
      $("preset-doc").textContent = p ? p.description : "";
    };
    showDoc();
    buildForm();
    $("form").addEventListener("input", schedule);
    $("form").addEventListener("change", () => { showDoc(); schedule(); });
    $("hf-json").addEventListener("input", () => { $("src-hf").checked = true; });
    $("plan-gpus").addEventListener("input", schedule);
    $("plan-top").addEventListener("input", schedule);
    $("reset").addEventListener("click", () => {
      for (const p of PARAMS) if ($("p-" + p.name)) $("p-" + p.name).value = p.defaultText;
      schedule();
    });
    $("copy-command").addEventListener("click", copyCommand);
    $("export-json").addEventListener("click", () => download("scenario.json", $("scenario-out").textContent + "\n"));
    $("export-hf").addEventListener("click", () => download("config.json", $("hf-json").value));
    $("scenario-load").addEventListener("click", loadScenario);
    compute();
  }

  window.llmmemPage = { compute, settings, modelSource, get last() { return last; } };
  main();
})();
