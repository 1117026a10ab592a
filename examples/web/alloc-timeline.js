/* The predicted allocation timeline (llmmem_timeline: the estimate's allocations replayed
 * through the model of PyTorch's caching allocator) as the library draws it: the GPU's
 * memory over the run's phases (the CUDA context, the bytes by category, the reserved and
 * GPU lines, the peak marked). The
 * same SVG as `llmmem timeline`. Loaded after llmmem-api.js: it adds allocTimeline() to
 * the object LlmmemApi.wrap returns, and LlmmemAllocTimeline.render(api, model, settings)
 * draws it under the phase timeline (app.js calls it after each estimate). */
(function (root) {
  "use strict";
  const FORMATS = { json: 0, svg: 1, snapshot: 2 }; // enum llmmem_timeline_format

  function withTimeline(M, api) {
    function allocTimeline(model, settings, format) {
      if (model.gguf || model.ggufMissing != null) return api.timelineOf(model, settings, FORMATS[format || "svg"]);
      const ptrs = [];
      const cstr = (s) => {
        const n = M.lengthBytesUTF8(s) + 1;
        const p = M._malloc(n);
        M.stringToUTF8(s, p, n);
        ptrs.push(p);
        return p;
      };
      const fail = (rc) => {
        throw new api.LlmmemError(rc, M.UTF8ToString(M._llmmem_last_error()));
      };
      let m = 0, c = 0;
      const out = M._malloc(8);
      try {
        let rc;
        if (model.preset) rc = M._llmmem_model_from_pretrained(out, cstr(model.preset.trim()), 0);
        else rc = M._llmmem_model_from_hf_json(out, cstr(model.hfJson || ""), M.lengthBytesUTF8(model.hfJson || ""));
        if (rc < 0) fail(rc);
        m = M.getValue(out, "i32");
        if ((rc = M._llmmem_config_new(out)) < 0) fail(rc);
        c = M.getValue(out, "i32");
        for (const [name, value] of settings)
          if ((rc = M._llmmem_config_set(c, cstr(name), cstr(String(value)))) < 0) fail(rc);
        const f = FORMATS[format || "svg"];
        rc = M._llmmem_timeline(0, 0, out, m, c, f);
        if (rc < 0 && rc !== -10) fail(rc);
        const n = M.getValue(out, "i32") >>> 0;
        const buf = M._malloc(n);
        ptrs.push(buf);
        if ((rc = M._llmmem_timeline(buf, n, out, m, c, f)) < 0) fail(rc);
        return M.UTF8ToString(buf);
      } finally {
        M._free(out);
        while (ptrs.length) M._free(ptrs.pop());
        if (c) M._llmmem_config_free(c);
        if (m) M._llmmem_model_free(m);
      }
    }
    api.allocTimeline = allocTimeline;
    return api;
  }

  // The chart's place: after the phase timeline, made on first use.
  function box() {
    let el = document.getElementById("alloc-timeline");
    if (el) return el;
    const anchor = document.getElementById("timeline");
    const h = document.createElement("h2");
    h.textContent = "Allocator timeline (predicted)";
    el = document.createElement("div");
    el.id = "alloc-timeline";
    el.className = "chart";
    anchor.after(h, el);
    return el;
  }

  function render(api, model, settings) {
    if (!api || !api.allocTimeline) return;
    const el = box();
    try {
      el.innerHTML = api.allocTimeline(model, settings, "svg");
      el.dataset.state = "ok";
    } catch (e) {
      // engines and runtimes without a timeline (multi-GPU training, vLLM) say so
      el.textContent = e.message;
      el.dataset.state = "none";
    }
  }

  if (root.LlmmemApi) {
    const wrap = root.LlmmemApi.wrap;
    root.LlmmemApi.wrap = (M) => withTimeline(M, wrap(M));
    const load = root.LlmmemApi.load;
    root.LlmmemApi.load = async (factory, opts) => {
      const f = factory || root.createLlmmem;
      if (!f) return load(factory, opts);
      const M = await f(opts || {});
      return withTimeline(M, wrap(M));
    };
  }
  root.LlmmemAllocTimeline = { render, withTimeline };
})(typeof self !== "undefined" ? self : this);
