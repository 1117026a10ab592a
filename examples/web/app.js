/* The page of examples/web: a form for people (labels with units, a line of help, only the
 * fields that apply), one or two scenarios side by side, the verdict with the settings it
 * rests on and a chart that agrees with it, the planner, and the equivalent llmmem command,
 * scenario JSON and shareable link. Every number comes from libllmmem (llmmem-api.js); this
 * file only lays it out. */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const GiB = 1073741824;
  let api = null;
  let PARAMS = [];
  let BYNAME = {};
  let GPUS = [];
  let seq = 0;
  let last = null; // the active scenario's {model, settings, result, config}

  // Parameter sections: the hundreds of the parameter ids (include/llmmem.h).
  const SECTIONS = {
    1: "Workload", 2: "Precision", 3: "Optimizer", 4: "Activations", 5: "LoRA / QLoRA",
    6: "Engine", 7: "GPUs and parallelism", 8: "Serving runtime (vLLM, llama.cpp)", 9: "GPU",
    10: "Vision inputs",
  };
  // Shown outside the "more" fold of their section.
  const PRIMARY = new Set([
    "mode", "micro_batch_size", "seq_len", "gradient_accumulation_steps", "batch_size", "prompt_len",
    "decode_len", "param_dtype", "compute_dtype", "master_weights", "weights_format", "kv_cache_dtype",
    "optimizer", "attention", "activation_checkpointing", "lora_rank", "qlora", "lora_alpha", "lora_targets",
    "engine", "zero_stage", "offload_optimizer", "offload_param", "sharding_strategy", "fsdp_version",
    "distributed_optimizer", "num_gpus", "data_parallel_size", "tensor_parallel_size",
    "pipeline_parallel_size", "context_parallel_size", "expert_parallel_size", "sequence_parallel",
    "runtime", "gpu_memory_utilization", "max_num_seqs", "max_model_len", "gpu", "gpu_memory_bytes",
    "n_gpu_layers", "ctx_size", "n_parallel", "cache_type_k", "cache_type_v", "flash_attn",
  ]);
  const PALETTE = ["#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#b6992d", "#f1ce63",
                   "#499894", "#86bcb6", "#e15759", "#ff9d9a", "#79706e", "#bab0ac"];
  const RESERVE = "#d3d3d3", CONTEXT = "#6b6b6b";

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const gib = (b) => (b / GiB).toFixed(2) + " GiB";
  const gb = (b) => (b / 1e9).toFixed(2) + " GB";
  const both = (b) => gib(b) + " / " + gb(b);
  const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  // The CLI's sizes (examples/cli/format.c): the largest unit under 1024 (1000), 2 decimals.
  function scaled(v, binary) {
    const names = binary ? ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] : ["B", "KB", "MB", "GB", "TB", "PB"];
    const base = binary ? 1024 : 1000;
    let u = 0;
    while (v >= base && u < 5) { v /= base; u++; }
    return u === 0 ? v.toFixed(0) + " " + names[0] : v.toFixed(2) + " " + names[u];
  }
  function fmtBytes(b, units) {
    const a = scaled(b, true), d = scaled(b, false);
    if (units === "GiB") return a;
    if (units === "GB") return d;
    return a === d ? a : a + " / " + d;
  }

  function setStatus(state, text) {
    const s = $("status");
    s.dataset.state = state;
    s.textContent = text;
  }

  // ---- scenarios: a and b, each a model source and the text of every parameter ----------
  const state = { active: "a", compare: false, units: "both", a: null, b: null };
  function freshScenario() {
    const values = {};
    for (const p of PARAMS) values[p.name] = p.defaultText;
    return { source: "preset", preset: "llama-3.1-8b", hf: "", cal: "", gguf: null, values };
  }
  const cur = () => state[state.active];
  const copyScenario = (s) => JSON.parse(JSON.stringify(s));

  // Ordered settings that apply and differ from the defaults: [[name, text], ...]
  function settingsOf(s) {
    const out = [];
    for (const p of PARAMS) {
      const v = String(s.values[p.name] ?? p.defaultText).trim();
      if (v !== "" && v !== p.defaultText && LlmmemLabels.applies(p.name, s.values)) out.push([p.name, v]);
    }
    return out;
  }
  function modelOf(s) {
    // a GGUF file: its header bytes (gguf.js keeps them; the scenario holds the key)
    const g = s.source === "gguf" && s.gguf ? LlmmemGguf.get(s.gguf.key) : null;
    if (s.source === "gguf")
      return g ? { gguf: g, ggufName: s.gguf.name } : { ggufMissing: s.gguf ? s.gguf.name : "" };
    const m = s.source === "hf" ? { hfJson: s.hf } : { preset: s.preset };
    if (s.cal.trim()) m.calibration = s.cal.trim();
    return m;
  }

  // ---- the form ------------------------------------------------------------------------
  function widget(p) {
    const id = "p-" + p.name;
    let input;
    if (p.type === "enum") {
      input = `<select id="${id}" data-param="${p.name}">` +
        p.values.map((v) => `<option>${esc(v)}</option>`).join("") + "</select>";
    } else if (p.type === "bool") {
      input = `<select id="${id}" data-param="${p.name}"><option>true</option><option>false</option></select>`;
    } else if (p.type === "i64" || p.type === "f64") {
      const step = p.type === "f64" ? "any" : "1";
      input = `<input type="number" id="${id}" data-param="${p.name}" step="${step}"` +
        (p.bounds ? ` min="${p.bounds[0]}" max="${p.bounds[1]}"` : "") + ">";
    } else {
      input = `<input type="text" id="${id}" data-param="${p.name}">`;
    }
    const def = p.defaultText === "" ? "empty" : p.defaultText;
    return `<label class="param" id="row-${p.name}" title="${esc(p.name)}: ${esc(p.doc || "")}">` +
      `<span class="lbl">${esc(LlmmemLabels.label(p.name))}</span>${input}` +
      `<span class="help">${esc(p.doc || "")}; default ${esc(def)}<span class="conv" id="conv-${p.name}"></span></span></label>`;
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
        html += `<details><summary>more</summary>${rest.map(widget).join("")}</details>`;
      html += "</fieldset>";
    }
    $("params").innerHTML = html;
  }

  // The form shows the active scenario: its values, and only the fields that apply.
  function showScenario() {
    const s = cur();
    for (const p of PARAMS) {
      const el = $("p-" + p.name);
      if (el) el.value = s.values[p.name];
    }
    $("src-preset").checked = s.source === "preset";
    $("src-hf").checked = s.source === "hf";
    $("src-gguf").checked = s.source === "gguf";
    $("gguf-name").textContent = s.gguf ? ggufLine(s.gguf) : "none yet: drop one on the page or open it";
    $("preset").value = s.preset;
    $("hf-json").value = s.hf;
    $("calibration-json").value = s.cal;
    showApplicable();
    for (const x of ["a", "b"]) {
      $("tab-" + x).classList.toggle("active", state.active === x);
      $("tab-" + x).setAttribute("aria-selected", String(state.active === x));
    }
    $("editing").textContent = state.compare ? "Editing scenario " + state.active.toUpperCase() : "";
  }

  // A byte count typed into a *_bytes field, also in GiB and GB (people do not count bytes).
  function showConversions() {
    const v = cur().values;
    for (const p of PARAMS) {
      const el = $("conv-" + p.name);
      if (!el) continue;
      const n = Number(v[p.name]);
      el.textContent = /_bytes$/.test(p.name) && Number.isFinite(n) && n > 0 ? " (this value: " + both(n) + ")" : "";
    }
  }

  function showApplicable() {
    showConversions();
    const v = cur().values;
    for (const p of PARAMS) {
      const row = $("row-" + p.name);
      if (row) row.hidden = !LlmmemLabels.applies(p.name, v);
    }
    for (const fs of document.querySelectorAll("#params fieldset")) {
      const rows = [...fs.querySelectorAll("label.param")];
      fs.hidden = rows.length > 0 && rows.every((r) => r.hidden);
      const d = fs.querySelector("details");
      if (d) {
        const n = [...d.querySelectorAll("label.param")].filter((r) => !r.hidden).length;
        d.hidden = n === 0;
        d.querySelector("summary").textContent = n + " more";
      }
    }
    const name = $("preset").value.trim().toLowerCase();
    const p = PRESETS.find((x) => x.name === name);
    $("preset-doc").textContent = p ? p.description : "";
  }

  // Reads the form into the active scenario.
  function readForm(ev) {
    const s = cur();
    const t = ev && ev.target;
    if (t && t.dataset && t.dataset.param) s.values[t.dataset.param] = t.value;
    s.source = $("src-hf").checked ? "hf" : $("src-gguf").checked ? "gguf" : "preset";
    s.preset = $("preset").value;
    s.hf = $("hf-json").value;
    s.cal = $("calibration-json").value;
  }

  // ---- command, scenario, link ---------------------------------------------------------------
  const shq = (s) => (/^[A-Za-z0-9._,\/:=+@%-]+$/.test(s) ? s : "'" + String(s).replace(/'/g, "'\\''") + "'");
  function commandArgs(model, sets) {
    const a = [];
    const gguf = model.gguf || model.ggufMissing != null;
    if (gguf) a.push("--gguf", shq(model.ggufName || model.ggufMissing || "model.gguf"));
    else if (model.preset) a.push("--preset", shq(model.preset));
    else a.push("--hf-config", "config.json");
    if (model.calibration) a.push("--calibration", "calibration.json");
    for (const [n, v] of sets) {
      // --gguf implies --mode inference --runtime llama_cpp (examples/cli/inputs.c)
      if (gguf && ((n === "mode" && v === "inference") || (n === "runtime" && v === "llama_cpp"))) continue;
      a.push("--" + n.replace(/_/g, "-"), shq(v));
    }
    return a;
  }
  function scenarioObject(model, sets, config) {
    const s = { model: model.gguf ? { gguf: model.ggufName } : model.preset ? { preset: model.preset } : { hf_config: "config.json" } };
    if (sets.length) {
      s.params = {};
      for (const [n] of sets) s.params[n] = config[n];
    }
    return s;
  }

  // The link: each scenario's model and the settings that apply ("b." in front for B).
  const b64 = (t) => btoa(unescape(encodeURIComponent(t))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const unb64 = (t) => decodeURIComponent(escape(atob(t.replace(/-/g, "+").replace(/_/g, "/"))));
  const LINK_HF_MAX = 6000;
  function linkOf() {
    const q = new URLSearchParams();
    for (const x of state.compare ? ["a", "b"] : ["a"]) {
      const s = state[x], pre = x === "a" ? "" : "b.";
      if (s.source === "gguf") {
        q.set(pre + "gguf", s.gguf ? s.gguf.name : ""); // the file itself cannot travel in a link
      } else if (s.source === "hf") {
        if (s.hf.length <= LINK_HF_MAX) q.set(pre + "hf", b64(JSON.stringify(JSON.parse(s.hf))));
      } else {
        q.set(pre + "preset", s.preset);
      }
      if (s.cal.trim()) q.set(pre + "cal", b64(s.cal.trim()));
      for (const [n, v] of settingsOf(s)) q.set(pre + n, v);
    }
    if (state.compare) q.set("compare", "1");
    if (state.units !== "both") q.set("units", state.units);
    return q.toString();
  }
  function readLink(hash) {
    const q = new URLSearchParams(hash.replace(/^#/, ""));
    const a = freshScenario(), b = freshScenario();
    let any = false;
    for (const [k, v] of q) {
      any = true;
      const s = k.startsWith("b.") ? b : a, n = k.startsWith("b.") ? k.slice(2) : k;
      if (n === "preset") { s.source = "preset"; s.preset = v; }
      else if (n === "hf") { s.source = "hf"; s.hf = JSON.stringify(JSON.parse(unb64(v)), null, 2); }
      else if (n === "gguf") { s.source = "gguf"; s.gguf = v ? { key: "", name: v, size: 0 } : null; }
      else if (n === "cal") s.cal = unb64(v);
      else if (n === "compare") state.compare = v === "1";
      else if (n === "units") state.units = v;
      else if (n in s.values) s.values[n] = v;
    }
    if (!any) return false;
    state.a = a;
    state.b = b;
    return true;
  }

  // ---- the settings and the verdict, as the CLI's table and chart give them ------------------
  // The CLI's settings items (examples/cli/table.c cli_settings).
  function settingsItems(r, c) {
    if (c.mode === "inference" && c.runtime === "llama_cpp") return LlmmemGguf.settingsItems(r, c);
    const it = [];
    if (c.mode === "inference") {
      it.push(`inference (${c.runtime})`, `batch ${group(c.batch_size)}`,
              `prompt ${group(c.prompt_len)} + decode ${group(c.decode_len)} tokens`,
              `weights ${c.weights_format}`, `KV cache ${c.kv_cache_dtype}`);
    } else {
      it.push("training", `seq_len ${group(c.seq_len)} tokens`,
              `micro-batch ${group(c.micro_batch_size)} x ${group(c.gradient_accumulation_steps)} accumulation step(s)`);
      it.push(`optimizer ${c.optimizer}`, `activation checkpointing ${c.activation_checkpointing}`);
      if (c.lora_rank > 0) it.push(`LoRA rank ${c.lora_rank}` + (c.qlora !== "none" ? `, QLoRA ${c.qlora}` : ""));
      it.push(c.engine === "zero" ? `engine zero (ZeRO stage ${c.zero_stage})` : `engine ${c.engine}`);
    }
    it.push(`${r.num_gpus} GPU(s)`);
    return it;
  }
  // The precision the estimate assumed, resolved by the engine (cli_precision); "" for inference.
  function precisionLine(r) {
    if (!r.param_dtype || r.param_dtype === "none") return "";
    return `${r.param_dtype} weights, ${r.compute_dtype} compute, ${r.master_dtype !== "none" ? r.master_dtype : "no"} masters, ` +
      `${r.grad_dtype} grads, ${r.optimizer_state_dtype} optimizer state`;
  }
  // The CLI's verdict line (cli_verdict), in GiB when the units are both.
  function verdictText(r, model, c, units) {
    const u = units === "both" ? "GiB" : units;
    const name = model.name || r.model_type || "raw model";
    const h = r.headroom_bytes;
    return `${name}: ${r.fits ? "fits" : "does NOT fit"}, ${fmtBytes(r.total_bytes_per_gpu, u)} of ` +
      `${fmtBytes(r.gpu_memory_bytes, u)} per ${c.gpu} GPU (${fmtBytes(Math.abs(h), u)} ${h < 0 ? "short" : "free"})`;
  }
  function gpuLine(r, c, units) {
    const def = BYNAME.gpu ? BYNAME.gpu.defaultText : "";
    return `${c.gpu}, ${fmtBytes(r.gpu_memory_bytes, units)} per GPU` +
      (c.gpu_memory_bytes > 0 ? " (memory as given, not the table's)" : c.gpu === def ? " (the default GPU)" : "");
  }

  // ---- the chart: the total per GPU against the capacity, then each phase ----------------------
  function niceStep(x) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(x, 1e-9))));
    for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p;
    return 10 * p;
  }
  function phasesOf(r) {
    return Object.keys(r.phases).filter((ph) => r.phases[ph].total > 0);
  }

  // The first bar stacks what total_bytes_per_gpu is made of: the peak phase's components
  // (= peak allocated), the allocator's reserve, the CUDA context; it crosses the capacity
  // line exactly when the total exceeds it. The other bars: allocated at each phase's peak.
  function barChart(r, units) {
    const unit = units === "GB" ? 1e9 : GiB, un = units === "GB" ? "GB" : "GiB";
    const comps = Object.keys(r.components);
    const phases = phasesOf(r);
    const cap = r.gpu_memory_bytes;
    const top = Math.max(cap, r.total_bytes_per_gpu, ...phases.map((ph) => r.phases[ph].total)) * 1.08;
    const tick = niceStep(top / unit / 8), ticks = Math.max(1, Math.ceil(top / unit / tick));
    const ymax = tick * ticks * unit;
    const W = 720, H = 320, L = 62, B = 48, T = 14, plotR = W - 220, LX = plotR + 84;
    const n = phases.length + 1, step = (plotR - L) / n, bw = Math.min(80, step * 0.62);
    const y = (v) => T + (H - T - B) * (1 - v / ymax);
    let svg = `<svg class="pg" viewBox="0 0 ${W} ${H}" role="img" aria-label="total per GPU against the capacity, and each phase">`;
    for (let i = 0; i <= ticks; i++) {
      const yy = y(i * tick * unit);
      svg += `<line x1="${L}" x2="${plotR}" y1="${yy}" y2="${yy}" class="grid"/><text x="${L - 6}" y="${yy + 4}" class="ax" text-anchor="end">${+(i * tick).toFixed(3)} ${un}</text>`;
    }
    const seg = (x, w, base, v, colour, what, comp) => v > 0
      ? `<rect class="segment" data-component="${comp}" x="${x}" y="${y(base + v)}" width="${w}" height="${Math.max(0, y(base) - y(base + v))}" fill="${colour}"><title>${esc(what)}: ${fmtBytes(v, units)}</title></rect>` : "";
    // the total bar
    let x = L + (step - bw) / 2, base = 0;
    const peak = r.phases[r.peak_phase];
    comps.forEach((c, ci) => {
      const v = peak ? peak.components[c] : 0;
      svg += seg(x, bw, base, v, PALETTE[ci % PALETTE.length], r.peak_phase + " / " + c, c);
      base += v || 0;
    });
    base = Math.max(base, r.peak_allocated_bytes);
    const reserve = Math.max(0, r.peak_reserved_bytes - base);
    svg += seg(x, bw, base, reserve, RESERVE, "allocator reserve (reserved - allocated)", "reserve");
    base += reserve;
    svg += seg(x, bw, base, r.cuda_context_bytes, CONTEXT, "CUDA context and memory outside PyTorch", "context");
    svg += `<text x="${x + bw / 2}" y="${y(r.total_bytes_per_gpu) - 4}" text-anchor="middle" class="val total">${(r.total_bytes_per_gpu / unit).toFixed(2)}</text>`;
    svg += `<text x="${x + bw / 2}" y="${H - B + 14}" text-anchor="middle" class="ax peak">total per GPU</text>` +
      `<text x="${x + bw / 2}" y="${H - B + 27}" text-anchor="middle" class="ax">(peak: ${esc(r.peak_phase)})</text>`;
    const sep = L + step;
    svg += `<line x1="${sep}" x2="${sep}" y1="${T}" y2="${H - B}" class="sep"/>`;
    phases.forEach((ph, i) => {
      const px = L + step * (i + 1) + (step - bw) / 2;
      let acc = 0;
      comps.forEach((c, ci) => {
        const v = r.phases[ph].components[c];
        svg += seg(px, bw, acc, v, PALETTE[ci % PALETTE.length], ph + " / " + c, c);
        acc += v || 0;
      });
      svg += `<text x="${px + bw / 2}" y="${H - B + 14}" text-anchor="middle" class="ax">${esc(ph)}</text>`;
      svg += `<text x="${px + bw / 2}" y="${y(acc) - 4}" text-anchor="middle" class="val">${(acc / unit).toFixed(2)}</text>`;
    });
    if (phases.length)
      svg += `<text x="${sep + 6}" y="${H - 6}" class="ax">allocated at each phase's peak (${un}; no reserve, no context)</text>`;
    svg += `<line x1="${L}" x2="${plotR}" y1="${y(cap)}" y2="${y(cap)}" class="cap"/>` +
      `<text x="${plotR + 4}" y="${y(cap) - 2}" class="cap-t">GPU capacity</text>` +
      `<text x="${plotR + 4}" y="${y(cap) + 11}" class="cap-t">${fmtBytes(cap, units === "both" ? "GiB" : units)}</text>`;
    if (r.requested_bytes > 0)
      svg += `<line x1="${L}" x2="${plotR}" y1="${y(r.requested_bytes)}" y2="${y(r.requested_bytes)}" class="budget"/>` +
        `<text x="${plotR + 4}" y="${y(r.requested_bytes) + 11}" class="budget-t">vLLM budget</text>`;
    svg += `<line x1="${L}" x2="${plotR}" y1="${y(0)}" y2="${y(0)}" class="base"/>`;
    let ly = T + 4;
    const used = comps.map((c) => phases.some((ph) => r.phases[ph].components[c]));
    comps.forEach((c, ci) => {
      if (!used[ci]) return;
      svg += `<rect class="legend" data-component="${c}" x="${LX}" y="${ly + 30}" width="9" height="9" fill="${PALETTE[ci % PALETTE.length]}"/><text x="${LX + 13}" y="${ly + 38}" class="ax">${esc(c.replace(/_/g, " "))}</text>`;
      ly += 13;
    });
    for (const [colour, what, comp] of [[RESERVE, "allocator reserve", "reserve"], [CONTEXT, "CUDA context", "context"]]) {
      svg += `<rect class="legend" data-component="${comp}" x="${LX}" y="${ly + 30}" width="9" height="9" fill="${colour}"/><text x="${LX + 13}" y="${ly + 38}" class="ax">${what}</text>`;
      ly += 13;
    }
    return svg + "</svg>";
  }

  // Live bytes through one step: the phases in order, each at its peak, back to what stays
  // allocated between steps (persistent_bytes).
  function timeline(r) {
    const phases = phasesOf(r);
    const pts = [["start", r.persistent_bytes]].concat(phases.map((ph) => [ph, r.phases[ph].total]));
    if (r.mode === "training") pts.push(["next step", r.persistent_bytes]);
    const cap = r.gpu_memory_bytes;
    const W = 640, H = 200, L = 70, B = 30, T = 14;
    const ymax = Math.max(cap, ...pts.map((p) => p[1])) * 1.08;
    const y = (v) => T + (H - T - B) * (1 - v / ymax);
    const seg = (W - L - 20) / pts.length;
    let path = "", svg = `<svg class="pg" viewBox="0 0 ${W} ${H}" role="img" aria-label="live bytes through the step">`;
    pts.forEach(([ph, v], i) => {
      const x0 = L + seg * i, x1 = x0 + seg;
      path += (i ? `L${x0},${y(v)}` : `M${x0},${y(v)}`) + `L${x1},${y(v)}`;
      svg += `<text x="${(x0 + x1) / 2}" y="${H - B + 16}" text-anchor="middle" class="ax${ph === r.peak_phase ? " peak" : ""}">${esc(ph)}</text>`;
      svg += `<text x="${(x0 + x1) / 2}" y="${y(v) - 4}" text-anchor="middle" class="val">${(v / GiB).toFixed(1)}</text>`;
    });
    svg += `<path d="${path}L${L + seg * pts.length},${y(0)}L${L},${y(0)}Z" class="fill"/><path d="${path}" class="line"/>`;
    svg += `<line x1="${L}" x2="${W - 20}" y1="${y(cap)}" y2="${y(cap)}" class="cap"/><text x="${W - 22}" y="${y(cap) - 4}" text-anchor="end" class="cap-t">capacity (the total adds the reserve and the context)</text>`;
    svg += `<text x="${L - 6}" y="${y(0) + 4}" class="ax" text-anchor="end">0</text><text x="${L - 6}" y="${y(cap) + 4}" class="ax" text-anchor="end">${(cap / GiB).toFixed(2)} GiB</text>`;
    return svg + "</svg>";
  }

  // ---- vLLM's capacity, first -----------------------------------------------------------------
  // The lines vLLM logs, as the CLI prints them at the top of its table (examples/cli/table.c
  // print_vllm): the weights, the KV memory, its tokens and the concurrency at max_model_len,
  // or the error vLLM stops with; then the longest context that fits.
  const gib4 = (b) => (b / GiB).toFixed(4);
  function vllmLines(r) {
    const L = [];
    L.push("vLLM, per GPU (as it logs them)" + (r.fits ? "" : ": it does not start"));
    L.push("Model loading took " + gib4(r.weights_bytes) + " GiB");
    const refused = (r.notes || []).find((n) => n.startsWith("vllm: free memory at start"));
    if (refused) {
      L.push(refused.slice(6));
    } else if (!r.kv_available_bytes) {
      L.push("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.");
    } else {
      L.push("Available KV cache memory: " + (r.kv_available_bytes / GiB).toFixed(2) + " GiB");
      if (r.fits) {
        L.push("GPU KV cache size: " + group(r.kv_tokens) + " tokens");
        L.push(`Maximum concurrency for ${group(r.max_model_len)} tokens per request: ${r.max_concurrency.toFixed(2)}x`);
      } else {
        let e = `To serve at least one request with the model's max seq len (${r.max_model_len}), ` +
          `(${(r.kv_cache_bytes / GiB).toFixed(2)} GiB KV cache is needed, which is larger than the available KV cache ` +
          `memory (${(r.kv_available_bytes / GiB).toFixed(2)} GiB).`;
        if (r.estimated_max_model_len) e += ` Based on the available memory, the estimated maximum model length is ${r.estimated_max_model_len}.`;
        L.push(e + " Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.");
      }
    }
    const n = r.estimated_max_model_len || 0;
    if (n > 0)
      L.push(`Longest context that fits: ${group(n)} tokens` + (n < r.max_model_len ? ` (--max-model-len ${n} starts it)`
        : n > r.max_model_len ? ` (--max-model-len up to ${n})` : " (= max_model_len)"));
    return L;
  }
  function capacityHtml(r) {
    const n = r.estimated_max_model_len || 0;
    let head;
    if (r.fits)
      head = `<div><span class="big">${group(r.kv_tokens)}</span> tokens of KV cache: up to <span class="big">` +
        `${r.max_concurrency.toFixed(2)}</span> requests of ${group(r.max_model_len)} tokens at once` +
        (n ? `; the longest context that fits is <b>${group(n)}</b> tokens` : "") + ".</div>";
    else
      head = `<div><b>vLLM would not start.</b> ` + (n ? `The longest context that fits is <span class="big">${group(n)}</span> ` +
        `tokens: serve with <code>--max-model-len ${n}</code> (or a larger <code>--gpu-memory-utilization</code>).` :
        "No context fits: raise <code>--gpu-memory-utilization</code>, use more GPUs (tensor parallel) or a smaller weight format.") + "</div>";
    return `<h3>Serving capacity</h3>${head}<div class="vllm-says">${vllmLines(r).map(esc).join("\n")}</div>`;
  }

  // ---- rendering ------------------------------------------------------------------------------
  // One scenario's pane: the verdict, the settings and GPU lines, the chart, the command.
  function renderPane(x, out, model, sets) {
    const r = out.result, c = out.config;
    const v = $("verdict-" + x);
    v.textContent = verdictText(r, out.model, c, state.units);
    v.className = "verdict " + (r.fits ? "ok" : "bad");
    $("settings-" + x).textContent = settingsItems(r, c).join(", ");
    const prec = precisionLine(r);
    $("precision-" + x).textContent = prec;
    $("precision-" + x).hidden = $("precision-t-" + x).hidden = !prec;
    $("gpu-" + x).textContent = gpuLine(r, c, state.units);
    const notes = (r.notes || []).filter((n) => /^assum/i.test(n));
    $("assumed-" + x).innerHTML = notes.map((n) => `<li>${esc(n)}</li>`).join("");
    $("chart-" + x).innerHTML = barChart(r, state.units);
    renderLlamaBuffers(x, r);
    $("command-" + x).textContent = "llmmem estimate " + commandArgs(model, sets).join(" ");
    const cap = $("capacity-" + x);
    cap.hidden = !r.max_model_len;
    cap.innerHTML = r.max_model_len ? capacityHtml(r) : "";
  }
  function clearPane(x, message) {
    $("verdict-" + x).textContent = message;
    $("verdict-" + x).className = "verdict bad";
    for (const k of ["settings", "precision", "gpu", "chart", "command", "assumed", "capacity"]) $(k + "-" + x).textContent = "";
    $("capacity-" + x).hidden = true;
  }

  // An input the library refuses: no figure of an earlier input stays on the page.
  function clearResult() {
    $("fits").textContent = "–";
    $("card-fits").className = "card";
    for (const id of ["headroom", "capacity", "peak-phase", "num-gpus", "timeline", "breakdown", "terms", "notes",
                      "model-json", "result-json", "command", "scenario-out", "plan-summary", "plan-table", "plan-command",
                      "max-batch", "max-seq-len", "min-gpus", "peak-allocated", "peak-reserved", "cuda-context",
                      "weights-bytes", "persistent", "kv-cache", "params-count", "trainable-count", "host-bytes",
                      "nvme-bytes"])
      $(id).textContent = "";
    for (const id of ["total", "utilization", "gpus-needed"]) $(id).textContent = "–";
    delete $("plan-table").dataset.json;
    const at = $("alloc-timeline");
    if (at) { at.textContent = ""; at.dataset.state = "none"; }
    last = null;
  }

  function renderResult(out, model, sets) {
    const r = out.result;
    const u = state.units;
    const vllm = !!r.max_model_len;
    $("card-fits").querySelector(".k").textContent = vllm ? "Does vLLM start?" : "Fits on the GPU?";
    $("fits").textContent = r.fits ? "yes" : "no";
    $("card-fits").className = "card " + (r.fits ? "ok" : "bad");
    $("headroom").textContent = (r.headroom_bytes >= 0 ? "headroom " : "short by ") + both(Math.abs(r.headroom_bytes));
    $("total").textContent = gib(r.total_bytes_per_gpu);
    $("capacity").textContent = "of " + both(r.gpu_memory_bytes);
    $("utilization").textContent = (r.utilization * 100).toFixed(1) + " %";
    $("peak-phase").textContent = "most in the " + r.peak_phase + " phase" + (r.pipeline_stages > 1 ? ", stage " + r.peak_stage : "");
    $("gpus-needed").textContent = r.gpus_needed === 0 ? "none" : String(r.gpus_needed);
    $("num-gpus").textContent = r.gpus_needed === 0 ? "no number of GPUs fits as set: see the planner below"
      : r.gpus_needed === r.num_gpus ? "the layout as set uses " + r.num_gpus : "the layout as set uses " + r.num_gpus;
    // the model the name resolved to (a preset's Hugging Face id: the note says which)
    const via = (out.model.notes || []).find((n) => /the built-in preset|from the Hugging Face cache/.test(n));
    const pre = PRESETS.find((x) => x.name === String(model.preset || "").trim().toLowerCase());
    $("preset-doc").textContent = model.preset ? (via || (pre ? pre.description : "")) : "";
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
    $("timeline").innerHTML = timeline(r);
    if (window.LlmmemAllocTimeline) LlmmemAllocTimeline.render(api, model, sets);

    const phases = Object.keys(r.phases);
    let t = "<tr><th>component</th>" + phases.map((p) => `<th>${esc(p)}</th>`).join("") + "</tr>";
    for (const c of Object.keys(r.components))
      t += `<tr><td>${esc(c)}</td>` + phases.map((p) => `<td class="num" title="${group(r.phases[p].components[c])} bytes">${fmtBytes(r.phases[p].components[c], u)}</td>`).join("") + "</tr>";
    t += "<tr><th>total</th>" + phases.map((p) => `<th class="num">${fmtBytes(r.phases[p].total, u)}</th>`).join("") + "</tr>";
    $("breakdown").innerHTML = t;
    $("terms").innerHTML = "<tr><th>term</th><th>bytes</th><th>formula and source</th></tr>" +
      (r.terms || []).map((x) => `<tr><td>${esc(x.name)}</td><td class="num">${group(x.bytes)}</td><td>${esc(x.formula)}</td></tr>`).join("");
    const notes = (r.notes || []).filter((n) => !/^assum/i.test(n)).concat((out.model.notes || []).map((n) => "model: " + n));
    $("notes").innerHTML = notes.map((n) => `<li>${esc(n)}</li>`).join("");
    $("model-json").textContent = JSON.stringify(out.model, null, 2);
    $("result-json").textContent = JSON.stringify(r, null, 2);

    $("command").textContent = "llmmem estimate " + commandArgs(model, sets).join(" ");
    $("scenario-out").textContent = JSON.stringify(scenarioObject(model, sets, out.config), null, 2);
    $("export-hf").hidden = model.hfJson == null;
  }

  function renderPlan(model, sets) {
    const lcpp = !!(last && last.config && last.config.mode === "inference" && last.config.runtime === "llama_cpp");
    $("lcpp-plan").hidden = !lcpp;
    if (lcpp) return renderLlamaPlan(model, sets);
    const n = parseInt($("plan-gpus").value, 10) || 1;
    const k = Math.min(64, Math.max(1, parseInt($("plan-top").value, 10) || 5));
    const args = commandArgs(model, sets);
    $("plan-command").textContent = "llmmem plan " + args.join(" ") + " --gpus " + n + " --top " + k + "\n" +
      "llmmem plan " + args.join(" ") + " --max-batch --max-seq-len --min-gpus";
    const mode = last && last.result ? last.result : null;
    const vllmRun = mode && mode.max_model_len, inferRun = mode && mode.mode === "inference";
    $("max-batch-t").textContent = vllmRun ? "most requests at once (max_num_seqs)" : inferRun ? "largest batch (sequences)" : "largest micro-batch that fits";
    $("max-seq-len-t").textContent = vllmRun ? "largest max_model_len the memory holds (vLLM takes at most the model's own)"
      : inferRun ? "longest prompt + generated tokens" : "longest sequence that fits (tokens)";
    $("min-gpus-t").textContent = inferRun ? "fewest GPUs (tensor parallel)" : "fewest GPUs";
    try {
      const inv = api.inverse(model, sets);
      for (const [key, id] of [["max_batch", "max-batch"], ["max_seq_len", "max-seq-len"], ["min_gpus", "min-gpus"]])
        $(id).textContent = inv[key] == null ? "(" + inv[key + "_error"] + ")" : group(inv[key]);
    } catch (e) {
      $("max-batch").textContent = $("max-seq-len").textContent = $("min-gpus").textContent = "";
    }
    let p;
    try {
      p = api.plan(model, sets, n, k);
    } catch (e) {
      $("plan-summary").textContent = "planner: " + e.message;
      $("plan-table").innerHTML = "";
      delete $("plan-table").dataset.json;
      return;
    }
    const rej = Object.entries(p.rejected).map(([a, b]) => a + " " + group(b)).join(", ");
    $("plan-summary").textContent = `${group(p.candidates)} candidate layouts of ${p.num_gpus} x ${p.gpu}: ` +
      `${group(p.feasible)} fit; rejected ${rej}. Ranked by the step-time model (docs/planner.md).` +
      (p.notes || []).map((n) => " Note: " + n + ".").join("");
    const train = p.mode === "training";
    let h = "<tr><th>#</th>" + (train ? "<th>engine</th><th>dp</th><th>tp</th><th>pp</th><th>cp</th><th>ep</th><th>options</th><th>recompute</th><th>micro-batch</th><th>accumulation</th>"
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

  // llama.cpp's planner: the most layers on the GPU and the longest context that fit
  // (llmmem plan --max-ngl --max-ctx), the most parallel sequences; no layouts of N GPUs.
  function renderLlamaPlan(model, sets) {
    const args = commandArgs(model, sets).join(" ");
    $("plan-command").textContent = "llmmem plan " + args + " --max-ngl --max-ctx\n" +
      "llmmem plan " + args + " --max-batch --max-seq-len --min-gpus";
    const show = (id, v, err) => ($(id).textContent = v == null ? "(" + err + ")" : group(v));
    try {
      const lp = api.llamaPlan(model, sets);
      show("max-ngl", lp.max_ngl, lp.max_ngl_error);
      show("max-ctx", lp.max_ctx, lp.max_ctx_error);
      const inv = api.inverse(model, sets);
      for (const [key, id] of [["max_batch", "max-batch"], ["max_seq_len", "max-seq-len"], ["min_gpus", "min-gpus"]])
        show(id, inv[key], inv[key + "_error"]);
    } catch (e) {
      for (const id of ["max-ngl", "max-ctx", "max-batch", "max-seq-len", "min-gpus"]) $(id).textContent = "";
    }
    $("plan-summary").textContent = "llama.cpp splits the layers between the GPU and the CPU (-ngl); its largest batch " +
      "is the most parallel sequences (--parallel) and its longest sequence the context (--ctx-size). It has no " +
      "layouts of several GPUs to rank here.";
    $("plan-table").innerHTML = "";
    delete $("plan-table").dataset.json;
  }

  // llama.cpp's buffers, GPU and CPU, in words (the result's terms, runtime.c lcpp_terms).
  function renderLlamaBuffers(x, r) {
    let el = $("lcpp-" + x);
    if (!el) {
      el = document.createElement("div");
      el.id = "lcpp-" + x;
      el.className = "lcpp small";
      $("chart-" + x).after(el);
    }
    const terms = Object.fromEntries((r.terms || []).map((t) => [t.name, t.bytes]));
    el.hidden = !("weights_gpu" in terms);
    if (el.hidden) return (el.innerHTML = "");
    const row = (name) => `<tr data-term="${name}"><td>${esc(LlmmemGguf.TERM_WORDS[name])}</td>` +
      `<td class="num">${fmtBytes(terms[name] || 0, state.units)}</td></tr>`;
    el.innerHTML = "<table class=\"grid\"><tr><th colspan=\"2\">What llama.cpp allocates</th></tr>" +
      ["weights_gpu", "kv_cache_gpu", "compute_buffer_gpu"].map(row).join("") +
      `<tr><td>CUDA context</td><td class="num">${fmtBytes(r.cuda_context_bytes, state.units)}</td></tr>` +
      ["host_weights", "host_kv_cache", "host_output_buffer", "host_compute_buffer"].map(row).join("") + "</table>";
  }

  function compute() {
    if (!api) return;
    const my = ++seq;
    $("panes").classList.toggle("two", state.compare);
    $("pane-b").hidden = !state.compare;
    $("tab-b").hidden = !state.compare;
    $("copy-to-b").hidden = !state.compare;
    $("compare").checked = state.compare;
    $("units").value = state.units;
    for (const el of document.querySelectorAll("[data-param], #preset")) el.classList.remove("invalid");
    let error = null;
    for (const x of state.compare ? ["a", "b"] : ["a"]) {
      const s = state[x], model = modelOf(s), sets = settingsOf(s);
      try {
        const out = api.estimate(model, sets);
        renderPane(x, out, model, sets);
        if (x === state.active) {
          last = { model, settings: sets, result: out.result, config: out.config };
          renderResult(out, model, sets);
          renderPlan(model, sets);
        }
      } catch (e) {
        clearPane(x, (state.compare ? x.toUpperCase() + ": " : "") + e.message);
        if (x === state.active) {
          if (e.param && $("p-" + e.param)) $("p-" + e.param).classList.add("invalid");
          else if (!e.param && s.source === "preset") $("preset").classList.add("invalid");
          clearResult();
          error = e;
        }
      }
    }
    try {
      const link = linkOf();
      history.replaceState(null, "", "#" + link);
      $("share-link").value = location.href;
    } catch (e) { /* a pasted config.json that is not JSON: the link keeps its last state */ }
    const v = $("verdict-" + state.active);
    $("sticky-verdict").textContent = v.textContent;
    $("sticky-verdict").className = "sticky-verdict " + (v.classList.contains("ok") ? "ok" : "bad");
    $("status").dataset.seq = String(my);
    if (error) setStatus("error", error.message);
    else setStatus("ok", `Estimated with libllmmem ${api.version} (WebAssembly).`);
  }

  let timer = 0;
  function schedule() {
    clearTimeout(timer);
    $("status").dataset.state = "pending";
    timer = setTimeout(compute, 120);
  }

  // ---- files: a config.json or a scenario, dropped, opened or pasted ----------------------------
  function download(name, text) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }

  async function copyText(text, el) {
    try {
      await navigator.clipboard.writeText(text);
      $("copy-msg").textContent = "copied";
    } catch (e) { // no clipboard permission (plain http, headless): select it instead
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      $("copy-msg").textContent = "selected: press Ctrl+C";
    }
  }

  // A scenario JSON into the active scenario (its model: a preset or a config.json to paste).
  function loadScenario(text) {
    let js, cfg;
    try {
      js = JSON.parse(text);
      cfg = api.scenarioConfig(text);
    } catch (e) {
      return "not a scenario: " + e.message;
    }
    const s = cur();
    for (const p of PARAMS) if (cfg[p.name] !== undefined) s.values[p.name] = String(cfg[p.name]);
    const m = js.model;
    const preset = typeof m === "string" ? m : m && m.preset;
    let msg;
    if (preset) {
      s.source = "preset";
      s.preset = preset;
      msg = "scenario loaded";
    } else if (m && m.hf_config) {
      s.source = "hf";
      msg = "scenario loaded; drop or paste " + m.hf_config + " as the model";
    } else {
      msg = "scenario loaded (its raw model is not read here: choose a preset or a config.json)";
    }
    showScenario();
    schedule();
    return msg;
  }

  // What a JSON text is: a HuggingFace config.json, a scenario, or neither.
  function takeJson(text, from) {
    let js;
    try {
      js = JSON.parse(text);
    } catch (e) {
      $("drop-msg").textContent = from + ": not JSON (" + e.message + ")";
      return;
    }
    if (js && typeof js === "object" && (js.model_type || js.architectures || js.text_config)) {
      const s = cur();
      s.source = "hf";
      s.hf = text;
      showScenario();
      schedule();
      $("drop-msg").textContent = from + ": a config.json (" + (js.model_type || "?") + ") is the model of scenario " + state.active.toUpperCase();
    } else if (js && typeof js === "object") {
      $("drop-msg").textContent = from + ": " + loadScenario(text);
    } else {
      $("drop-msg").textContent = from + ": neither a config.json nor a scenario";
    }
  }

  async function takeFiles(files, how) {
    if (!files || !files.length) return;
    const f = files[0];
    if (LlmmemGguf.isGguf(f.name)) return takeGguf(f, how);
    takeJson(await f.text(), how + " " + f.name);
  }

  // ---- a .gguf file: its header only (gguf.js), the model of the scenario being edited -----------
  const sizeText = (n) => fmtBytes(n, "both");
  function ggufLine(g) {
    return g.key ? `${g.name} (${sizeText(g.size)}; its header read: ${sizeText(g.read)})`
                 : `${g.name}: drop this file again (a link cannot carry it)`;
  }
  async function takeGguf(f, how) {
    $("drop-msg").textContent = how + " " + f.name + ": reading its header...";
    let g;
    try {
      g = await LlmmemGguf.readHeader(api, f);
    } catch (e) {
      $("drop-msg").textContent = how + " " + f.name + ": " + e.message;
      return;
    }
    const s = cur();
    s.source = "gguf";
    s.gguf = { key: g.key, name: g.name, size: g.size, read: g.read };
    // a GGUF is llama.cpp's (as --gguf in the CLI): inference on runtime llama_cpp
    s.values.mode = "inference";
    s.values.runtime = "llama_cpp";
    showScenario();
    schedule();
    $("drop-msg").textContent = `${how} ${f.name}: a GGUF file (llama.cpp) is the model of scenario ${state.active.toUpperCase()}; ` +
      `read ${sizeText(g.read)} of ${sizeText(g.size)} (the header, not the weights)`;
  }

  // ---- start ------------------------------------------------------------------------------------
  let PRESETS = [];
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
    fetch("libyaml-version.txt").then((r) => (r.ok ? r.text() : "")).then((t) => ($("libyaml-version").textContent = t.trim())).catch(() => {});
    PARAMS = api.params();
    BYNAME = Object.fromEntries(PARAMS.map((p) => [p.name, p]));
    GPUS = api.gpus();
    PRESETS = api.presets();
    $("preset-list").innerHTML = PRESETS.map((p) => `<option value="${esc(p.name)}" label="${esc(p.description)}"></option>`).join("");
    $("preset-count").textContent = String(PRESETS.length);
    buildForm();
    state.a = freshScenario();
    state.b = freshScenario();
    readLink(location.hash);
    showScenario();

    $("form").addEventListener("input", (ev) => { readForm(ev); showApplicable(); schedule(); });
    $("form").addEventListener("change", (ev) => { readForm(ev); showApplicable(); schedule(); });
    $("hf-json").addEventListener("input", () => { $("src-hf").checked = true; readForm(); });
    $("plan-gpus").addEventListener("input", schedule);
    $("plan-top").addEventListener("input", schedule);
    $("reset").addEventListener("click", () => {
      const s = cur();
      for (const p of PARAMS) s.values[p.name] = p.defaultText;
      $("drop-msg").textContent = "";
      showScenario();
      schedule();
    });
    for (const x of ["a", "b"])
      $("tab-" + x).addEventListener("click", () => { state.active = x; showScenario(); schedule(); });
    $("compare").addEventListener("change", () => {
      state.compare = $("compare").checked;
      if (!state.compare) state.active = "a";
      showScenario();
      schedule();
    });
    $("copy-to-b").addEventListener("click", () => {
      state.b = copyScenario(state.a);
      state.active = "b";
      showScenario();
      schedule();
    });
    $("units").addEventListener("change", () => { state.units = $("units").value; schedule(); });
    $("copy-command").addEventListener("click", () => copyText($("command").textContent, $("command")));
    $("copy-link").addEventListener("click", () => copyText(location.href, $("share-link")));
    $("export-json").addEventListener("click", () => download("scenario.json", $("scenario-out").textContent + "\n"));
    $("export-hf").addEventListener("click", () => download("config.json", cur().hf));
    $("scenario-load").addEventListener("click", () => { $("scenario-msg").textContent = loadScenario($("scenario-json").value); });
    $("file").addEventListener("change", () => takeFiles($("file").files, "opened"));
    const drop = $("drop");
    for (const t of ["dragenter", "dragover"])
      document.addEventListener(t, (e) => { e.preventDefault(); drop.classList.add("over"); });
    document.addEventListener("dragleave", (e) => { if (!e.relatedTarget) drop.classList.remove("over"); });
    document.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("over");
      const dt = e.dataTransfer;
      if (dt.files && dt.files.length) takeFiles(dt.files, "dropped");
      else if (dt.getData("text")) takeJson(dt.getData("text"), "dropped text");
    });
    // JSON pasted anywhere but into a field: a config.json or a scenario
    document.addEventListener("paste", (e) => {
      const t = e.target;
      if (t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT")) return;
      const text = (e.clipboardData || window.clipboardData).getData("text");
      if (text && /^\s*\{/.test(text)) {
        e.preventDefault();
        takeJson(text, "pasted");
      }
    });
    window.addEventListener("hashchange", () => {
      if (location.hash.slice(1) !== linkOf() && readLink(location.hash)) {
        showScenario();
        schedule();
      }
    });
    compute();
  }

  window.llmmemPage = {
    compute, takeJson, state, settingsOf, params: () => PARAMS.map((p) => p.name),
    settings: () => settingsOf(cur()), modelSource: () => modelOf(cur()), get last() { return last; },
  };
  main();
})();
