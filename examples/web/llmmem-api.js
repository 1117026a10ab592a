/* A thin JavaScript layer over libllmmem compiled to WebAssembly (llmmem.js + llmmem.wasm,
 * built by `make web`). It calls the library's public C functions (include/llmmem.h) and
 * nothing else, so every number is the one the C library and the llmmem CLI give.
 *
 *   const api = await LlmmemApi.load();            // browser: createLlmmem is global
 *   const r = api.estimate({preset: "llama-3.1-8b"}, [["micro_batch_size", "4"]]);
 *
 * Works in Node too: LlmmemApi.load(require("./llmmem.js"), {wasmBinary: bytes}).
 */
(function (root) {
  "use strict";

  function wrap(M) {
    const cstrs = [];
    // C string in wasm memory; freed by free_all() at the end of each public call.
    function cstr(s) {
      const n = M.lengthBytesUTF8(s) + 1;
      const p = M._malloc(n);
      M.stringToUTF8(s, p, n);
      cstrs.push(p);
      return p;
    }
    function alloc(n) {
      const p = M._malloc(n);
      for (let i = 0; i < n; i++) M.setValue(p + i, 0, "i8");
      cstrs.push(p);
      return p;
    }
    function freeAll() {
      while (cstrs.length) M._free(cstrs.pop());
    }
    const str = (p) => (p ? M.UTF8ToString(p) : null);

    class LlmmemError extends Error {
      constructor(status, message) {
        super(str(M._llmmem_status_name(status)) + ": " + message);
        this.status = status;
        this.statusName = str(M._llmmem_status_name(status));
        this.detail = message;
      }
    }
    function check(rc) {
      if (rc < 0) throw new LlmmemError(rc, str(M._llmmem_last_error()) || str(M._llmmem_strerror(rc)));
      return rc;
    }
    // snprintf-style (buf, cap, needed, ...args) -> text
    function text(fn, ...args) {
      const need = alloc(4);
      const rc = fn(0, 0, need, ...args);
      if (rc !== 0 && rc !== -10) check(rc);
      const n = Math.max(M.getValue(need, "i32") >>> 0, 1);
      const buf = alloc(n);
      check(fn(buf, n, need, ...args));
      return M.UTF8ToString(buf);
    }
    function newHandle(fn, ...args) {
      const out = alloc(4);
      check(fn(out, ...args));
      return M.getValue(out, "i32");
    }
    function readI64(p) {
      const lo = M.getValue(p, "i32") >>> 0;
      const hi = M.getValue(p + 4, "i32");
      return hi * 4294967296 + lo;
    }

    // ---- static tables -------------------------------------------------------------
    const TYPE = { 1: "i64", 2: "f64", 3: "bool", 4: "enum", 5: "str", 6: "u64" };
    function params() {
      const out = [];
      const cfg = newHandle(M._llmmem_config_new);
      try {
        const n = M._llmmem_param_count();
        for (let i = 0; i < n; i++) {
          const id = check(M._llmmem_param_at(i));
          const t = TYPE[check(M._llmmem_param_type(id))];
          const p = { id, name: str(M._llmmem_param_name(id)), type: t, doc: str(M._llmmem_param_doc(id)) };
          p.defaultText = text(M._llmmem_config_get_str, cfg, id);
          if (t === "enum") {
            p.values = [];
            const k = M._llmmem_param_enum_count(id);
            for (let v = 0; v < k; v++) p.values.push(str(M._llmmem_param_enum_name(id, BigInt(v))));
          }
          if (t === "i64" || t === "bool" || t === "enum") {
            const lo = alloc(8), hi = alloc(8);
            check(M._llmmem_param_bounds_i64(lo, hi, id));
            p.bounds = [readI64(lo), readI64(hi)];
          } else if (t === "f64") {
            const lo = alloc(8), hi = alloc(8);
            check(M._llmmem_param_bounds_f64(lo, hi, id));
            p.bounds = [M.getValue(lo, "double"), M.getValue(hi, "double")];
          }
          out.push(p);
        }
      } finally {
        M._llmmem_config_free(cfg);
        freeAll();
      }
      return out;
    }
    function presets() {
      const out = [];
      for (let i = 0; i < M._llmmem_preset_count(); i++)
        out.push({ name: str(M._llmmem_preset_name(i)), description: str(M._llmmem_preset_description(i)) });
      return out;
    }
    function gpus() {
      const out = [];
      const b = M._malloc(8);
      for (let i = 0; i < M._llmmem_gpu_count(); i++) {
        check(M._llmmem_gpu_memory_bytes(b, i));
        out.push({ name: str(M._llmmem_gpu_name(i)), bytes: readI64(b) });
      }
      M._free(b);
      return out;
    }

    // ---- a GGUF file's header (gguf.js reads the slices) ---------------------------------
    // The first bytes of a file of `size` bytes into wasm memory, for llmmem_model_from_gguf.
    function ggufModel(bytes, size) {
      const p = M._malloc(Math.max(1, bytes.length));
      M.HEAPU8.set(bytes, p);
      const out = alloc(4);
      try {
        const rc = M._llmmem_model_from_gguf(out, p, bytes.length, BigInt(size));
        return rc < 0 ? { rc } : { rc, m: M.getValue(out, "i32") };
      } finally {
        M._free(p);
      }
    }
    // {more: true} while the header goes on past the slice (LLMMEM_E_BUFFER_TOO_SMALL), else
    // {ok: true} or {error: message, status}.
    function ggufProbe(bytes, size) {
      try {
        const r = ggufModel(bytes, size);
        if (r.rc === 0) {
          M._llmmem_model_free(r.m);
          return { ok: true };
        }
        if (str(M._llmmem_status_name(r.rc)) === "LLMMEM_E_BUFFER_TOO_SMALL") return { more: true };
        return { error: str(M._llmmem_last_error()) || str(M._llmmem_strerror(r.rc)), status: str(M._llmmem_status_name(r.rc)) };
      } finally {
        freeAll();
      }
    }
    // One parsed model per header (a file dropped once, estimated many times): cloned for each
    // scenario build, the header itself parsed once.
    const ggufParsed = new Map(); // bytes -> model handle
    function ggufHandle(g) {
      let h = ggufParsed.get(g.bytes);
      if (!h) {
        const r = ggufModel(g.bytes, g.size);
        if (r.rc !== 0) check(r.rc);
        for (const old of ggufParsed.values()) M._llmmem_model_free(old); // the last file only
        ggufParsed.clear();
        ggufParsed.set(g.bytes, (h = r.m));
      }
      return newHandle(M._llmmem_model_clone, h);
    }

    // ---- one scenario: model source + ordered (name, text) settings -------------------
    // model: {preset: NAME} | {hfJson: TEXT} | {gguf: {bytes, size}}; NAME is a preset or a
    // Hugging Face id, found as llmmem_model_from_pretrained finds it with no cache (a preset's
    // id; a browser has no Hugging Face cache). settings: [[name, valueText], ...] applied in
    // order with llmmem_config_set, as the CLI applies its --PARAM flags.
    function build(model, settings) {
      let m = 0, c = 0;
      try {
        if (model.ggufMissing != null)
          throw new LlmmemError(-1, model.ggufMissing ? `the GGUF file ${model.ggufMissing} is not loaded here: drop it on the page or open it (a link cannot carry it)`
                                                      : "no GGUF file yet: drop one on the page or open it");
        if (model.gguf) m = ggufHandle(model.gguf);
        else if (model.preset) m = newHandle(M._llmmem_model_from_pretrained, cstr(model.preset.trim()), 0);
        else if (model.hfJson != null) {
          const s = cstr(model.hfJson);
          m = newHandle(M._llmmem_model_from_hf_json, s, M.lengthBytesUTF8(model.hfJson));
        } else throw new LlmmemError(-1, "no model: choose a preset or paste a config.json");
        c = newHandle(M._llmmem_config_new);
        for (const [name, value] of settings) {
          const rc = M._llmmem_config_set(c, cstr(name), cstr(String(value)));
          if (rc < 0) {
            const e = new LlmmemError(rc, str(M._llmmem_last_error()));
            e.param = name;
            throw e;
          }
        }
        if (model.calibration) {
          const s = cstr(model.calibration);
          check(M._llmmem_config_apply_calibration_json(c, s, M.lengthBytesUTF8(model.calibration)));
        }
        return { m, c };
      } catch (e) {
        if (c) M._llmmem_config_free(c);
        if (m) M._llmmem_model_free(m);
        freeAll();
        throw e;
      }
    }
    function release(h) {
      M._llmmem_config_free(h.c);
      M._llmmem_model_free(h.m);
      freeAll();
    }

    function estimate(model, settings) {
      const h = build(model, settings);
      let r = 0;
      try {
        r = newHandle(M._llmmem_result_new);
        check(M._llmmem_estimate(r, h.m, h.c));
        const json = text(M._llmmem_result_to_json, r); // the library's bytes (test/web/properties.js)
        const result = JSON.parse(json);
        const mjson = JSON.parse(text(M._llmmem_model_to_json, h.m));
        const cjson = JSON.parse(text(M._llmmem_config_to_json, h.c));
        return { result, model: mjson, config: cjson, json };
      } finally {
        if (r) M._llmmem_result_free(r);
        release(h);
      }
    }

    // The planner on the same inputs: as `llmmem plan ... --gpus N --top K --json`.
    function plan(model, settings, numGpus, topK) {
      const h = build(model, settings);
      let p = 0;
      try {
        check(M._llmmem_config_set_i64(h.c, 700 /* LLMMEM_P_NUM_GPUS */, BigInt(numGpus)));
        p = newHandle(M._llmmem_plan_new);
        check(M._llmmem_plan_layouts(p, h.m, h.c, topK));
        return JSON.parse(text(M._llmmem_plan_to_json, p));
      } finally {
        if (p) M._llmmem_plan_free(p);
        release(h);
      }
    }

    // llmmem_timeline of any model source (alloc-timeline.js draws presets and config.json
    // itself; a GGUF's parsed header is here)
    function timelineOf(model, settings, format) {
      const h = build(model, settings);
      try {
        return text(M._llmmem_timeline, h.m, h.c, format);
      } finally {
        release(h);
      }
    }

    // llama.cpp's planner questions (llmmem plan --max-ngl --max-ctx): the most layers on the
    // GPU and the longest context that fit, each null with its error when there is none.
    function llamaPlan(model, settings) {
      const h = build(model, settings);
      const out = {};
      try {
        const v = alloc(8);
        for (const [k, fn] of [["max_ngl", M._llmmem_plan_max_gpu_layers], ["max_ctx", M._llmmem_plan_max_seq_len]]) {
          const rc = fn(v, h.m, h.c);
          out[k] = rc < 0 ? null : readI64(v);
          if (rc < 0) out[k + "_error"] = str(M._llmmem_last_error());
        }
        return out;
      } finally {
        release(h);
      }
    }

    // Inverse questions on the configuration as given (llmmem plan --max-batch etc.).
    function inverse(model, settings) {
      const h = build(model, settings);
      const out = {};
      try {
        const v = alloc(8);
        for (const [k, fn] of [["max_batch", M._llmmem_plan_max_batch], ["max_seq_len", M._llmmem_plan_max_seq_len],
                               ["min_gpus", M._llmmem_plan_min_gpus]]) {
          const rc = fn(v, h.m, h.c);
          out[k] = rc < 0 ? null : readI64(v);
          if (rc < 0) out[k + "_error"] = str(M._llmmem_last_error());
        }
        return out;
      } finally {
        release(h);
      }
    }

    // The configuration of a scenario JSON (its model section is not loaded): every
    // parameter as config_to_json writes it.
    function scenarioConfig(json) {
      let c = 0;
      try {
        const out = alloc(4);
        check(M._llmmem_scenario_from_json(0, out, cstr(json), M.lengthBytesUTF8(json), 0));
        c = M.getValue(out, "i32");
        return JSON.parse(text(M._llmmem_config_to_json, c));
      } finally {
        if (c) M._llmmem_config_free(c);
        freeAll();
      }
    }

    return {
      version: str(M._llmmem_version_string()),
      params, presets, gpus, estimate, plan, inverse, scenarioConfig, ggufProbe, llamaPlan, timelineOf,
      componentNames: () => Array.from({ length: M._llmmem_component_count() }, (_, i) => str(M._llmmem_component_name(i))),
      phaseNames: () => Array.from({ length: M._llmmem_phase_count() }, (_, i) => str(M._llmmem_phase_name(i))),
      LlmmemError,
    };
  }

  async function load(factory, opts) {
    const f = factory || root.createLlmmem;
    if (!f) throw new Error("llmmem.js is not loaded (run make web)");
    return wrap(await f(opts || {}));
  }

  const api = { load, wrap };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.LlmmemApi = api;
})(typeof self !== "undefined" ? self : this);
