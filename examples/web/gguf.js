/* A .gguf file dropped on the page (llama.cpp's format): only its header is read, never the
 * weights. The page reads a slice of the file and hands it to llmmem_model_from_gguf with the
 * file's whole size; while the header goes on past the slice the library answers
 * LLMMEM_E_BUFFER_TOO_SMALL and the slice grows (x4) until it parses, or fails with the
 * library's message (its byte offset). A 40 GB file costs a few MB of reading.
 *
 * The header bytes stay here, in memory, under a key; the scenarios hold only {key, name,
 * size} (they are copied as JSON). The API layer builds the model from them once and clones
 * it for each estimate.
 *
 * Also the llama.cpp side of the page: its settings line (as the CLI's table.c cli_settings
 * prints it) and its planner questions (the most layers on the GPU, the longest context). */
(function (root) {
  "use strict";

  const FIRST_SLICE = 1 << 20; // 1 MiB: a small model's whole header, a large one's start
  const GROWTH = 4;
  const files = new Map(); // key -> {name, size, bytes: Uint8Array, slices: [lengths read]}
  let nextKey = 1;

  const isGguf = (name) => /\.gguf$/i.test(name || "");

  // Reads the header of File f: resolves to {key, name, size, read, slices} or rejects with
  // the library's error (its message naming the file rather than "model.gguf").
  async function readHeader(api, f, opts) {
    const first = Math.max(64, (opts && opts.first) || FIRST_SLICE);
    const slices = [];
    let n = Math.min(f.size, first);
    for (;;) {
      const bytes = new Uint8Array(await f.slice(0, n).arrayBuffer());
      slices.push(n);
      const r = api.ggufProbe(bytes, f.size);
      if (r.more && n < f.size) {
        n = Math.min(f.size, n * GROWTH);
        continue;
      }
      if (r.error) {
        const e = new Error(r.error.replace(/\bmodel\.gguf\b/, f.name));
        e.status = r.status;
        throw e;
      }
      const key = "g" + nextKey++;
      files.set(key, { name: f.name, size: f.size, bytes, slices });
      return { key, name: f.name, size: f.size, read: n, slices };
    }
  }

  const get = (key) => files.get(key) || null;

  // The settings line of a llama_cpp result, as the CLI's table prints it (cli_settings).
  const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  function settingsItems(r, c) {
    const it = ["inference (llama_cpp)"];
    it.push(c.n_gpu_layers < 0 ? "all layers on the GPU" : `${c.n_gpu_layers} layers on the GPU (-ngl)`);
    it.push(`context ${group(r.max_context_tokens)} tokens`);
    it.push(`batch ${group(c.n_batch)}, ubatch ${group(c.n_ubatch)}`);
    it.push(`${c.n_parallel} sequence(s)` + (c.kv_unified ? " (unified KV)" : ""));
    it.push(`KV cache ${c.cache_type_k}/${c.cache_type_v}` + (c.no_kv_offload ? " in host memory" : ""));
    it.push(`flash attention ${c.flash_attn}`);
    if (c.n_cpu_moe > 0) it.push(`experts of the first ${c.n_cpu_moe} layers on the CPU`);
    it.push(`${r.num_gpus} GPU(s)`);
    return it;
  }

  // What llama.cpp's buffers are in words, from the result's terms (runtime.c lcpp_terms).
  const TERM_WORDS = {
    weights_gpu: "model buffer on the GPU (the offloaded layers' weights)",
    kv_cache_gpu: "KV buffer on the GPU",
    compute_buffer_gpu: "compute buffer on the GPU",
    host_weights: "weights left in CPU memory (mmap)",
    host_kv_cache: "KV cache of the layers on the CPU",
    host_output_buffer: "output buffer (logits, CPU memory)",
    host_compute_buffer: "compute buffer in CPU memory",
  };

  const api = { readHeader, get, isGguf, settingsItems, TERM_WORDS, FIRST_SLICE };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.LlmmemGguf = api;
})(typeof self !== "undefined" ? self : this);
