/* What the page calls each parameter of the library: a label for people, with its unit, and
 * where it applies. The one-line help under each field is the library's own description
 * (llmmem_param_doc). A parameter missing here (added to the library later) is shown with
 * its name made readable and shown everywhere. */
(function (root) {
  "use strict";

  // When a parameter applies, from the scenario's values (v: name -> text).
  const train = (v) => v.mode !== "inference";
  const infer = (v) => v.mode === "inference";
  const vllm = (v) => infer(v) && v.runtime === "vllm";
  // llama.cpp (a GGUF file): its own flags; the HF runtime's workload and precision fields
  // are not read there (the library refuses them: engines/llamacpp/runtime.c not_read)
  const lcpp = (v) => infer(v) && v.runtime === "llama_cpp";
  const notLcpp = (f) => (v) => f(v) && !lcpp(v);
  // HF generate's workload (batch, prompt, decode): vLLM sizes its KV pool from max_num_seqs
  // and max_model_len instead (the library refuses these with runtime vllm: engines/applies.c)
  const hfGen = (v) => infer(v) && !vllm(v) && !lcpp(v);
  const engine = (...names) => (v) => train(v) && names.includes(v.engine);
  const zero = (v) => train(v) && (v.engine === "zero" || v.engine === "megatron_deepspeed");
  const zero3 = (v) => zero(v) && v.zero_stage === "3";
  const megatron = engine("megatron", "megatron_deepspeed");
  const multi = engine("ddp", "zero", "fsdp", "megatron", "megatron_deepspeed");
  const lora = (v) => train(v) && Number(v.lora_rank) > 0;
  const always = () => true;
  // the caching allocator's replay draws single-GPU training and HF inference
  const replay = (v) => (train(v) && v.engine === "single") || (infer(v) && v.runtime === "hf");
  const replayOn = (v) => replay(v) && !["false", "0"].includes(String(v.allocator_replay));

  // name: [label (with its unit), applies]
  const LABELS = {
    mode: ["What to estimate: training or serving (inference)", always],
    micro_batch_size: ["Micro-batch size (sequences per GPU)", train],
    seq_len: ["Sequence length (tokens)", train],
    gradient_accumulation_steps: ["Gradient accumulation (micro-steps per step)", train],
    batch_size: ["Batch size (sequences generated together)", hfGen],
    prompt_len: ["Prompt length (tokens)", hfGen],
    decode_len: ["Generated tokens per sequence (0 = prompt only)", hfGen],
    peak_scope: ["Peak over (step, or the whole process with loading)", train],
    param_dtype: ["Weight precision", notLcpp(always)],
    compute_dtype: ["Compute precision (auto = weight precision)", notLcpp(always)],
    master_weights: ["fp32 master weights", train],
    grad_dtype: ["Gradient precision", train],
    weights_format: ["Weight format / quantization", notLcpp(infer)],
    kv_cache_dtype: ["KV cache precision", notLcpp(infer)],
    quant_bits: ["Quantization bits (GPTQ/AWQ; 0 = the model's)", notLcpp(infer)],
    quant_group_size: ["Quantization group size (0 = the model's)", notLcpp(infer)],
    fp8_recipe: ["FP8 recipe (Transformer Engine)", train],
    optimizer: ["Optimizer", train],
    optimizer_impl: ["Optimizer implementation", train],
    optimizer_state_dtype: ["Optimizer state precision", train],
    step: ["Which optimizer step", train],
    optimizer_in_backward: ["Optimizer step inside backward", train],
    attention: ["Attention kernel", notLcpp(always)],
    activation_checkpointing: ["Activation checkpointing (recompute)", train],
    loss: ["Loss implementation", train],
    activation_profile: ["Activation accounting", train],
    dropout: ["Dropout masks", train],
    compile: ["torch.compile scope", train],
    activation_offloading: ["Activation offloading to CPU", (v) => train(v) && v.activation_checkpointing === "full"],
    loss_chunks: ["Loss output chunks (0 = 8)", (v) => train(v) && v.loss === "torchtune_chunked"],
    liger_kernels: ["Liger RMSNorm/SwiGLU/RoPE kernels", train],
    lora_rank: ["LoRA rank (0 = full fine-tuning)", train],
    lora_alpha: ["LoRA alpha", lora],
    lora_targets: ["LoRA target modules", lora],
    lora_dropout: ["LoRA dropout (probability)", lora],
    qlora: ["QLoRA: frozen base storage", lora],
    qlora_double_quant: ["QLoRA double quantization", (v) => lora(v) && v.qlora !== "none"],
    qlora_compute_dtype: ["QLoRA: bitsandbytes 4-bit compute dtype", (v) => lora(v) && ["nf4", "fp4"].includes(v.qlora)],
    qlora_quantize_head: ["QLoRA: output head in 4 bits too", (v) => lora(v) && ["nf4", "fp4"].includes(v.qlora)],
    engine: ["Training engine", train],
    zero_stage: ["ZeRO stage", zero],
    offload_optimizer: ["Optimizer offload (ZeRO)", zero],
    offload_param: ["Parameter offload (ZeRO-3)", zero3],
    bucket_cap_mb: ["DDP bucket size (MiB)", engine("ddp")],
    gradient_as_bucket_view: ["Gradients as views of the DDP buckets", engine("ddp")],
    reduce_bucket_size: ["ZeRO reduce bucket (elements)", zero],
    allgather_bucket_size: ["ZeRO all-gather bucket (elements)", zero],
    contiguous_gradients: ["ZeRO contiguous gradient buffer", zero],
    overlap_comm: ["ZeRO overlap communication", zero],
    stage3_max_live_parameters: ["ZeRO-3 max live parameters (elements)", zero3],
    stage3_prefetch_bucket_size: ["ZeRO-3 prefetch bucket (elements)", zero3],
    stage3_param_persistence_threshold: ["ZeRO-3 persistence threshold (elements)", zero3],
    zero_hpz_partition_size: ["ZeRO++ hpZ partition (GPUs)", zero3],
    fsdp_version: ["FSDP version", engine("fsdp")],
    sharding_strategy: ["FSDP sharding strategy", engine("fsdp")],
    fsdp_cpu_offload: ["FSDP CPU offload", engine("fsdp")],
    fsdp_param_dtype: ["FSDP mixed precision: parameter dtype", engine("fsdp")],
    fsdp_reduce_dtype: ["FSDP mixed precision: reduce dtype", engine("fsdp")],
    reshard_after_forward: ["FSDP2 reshard after forward (-1 auto, 0 no, 1 yes, k ranks)", engine("fsdp")],
    offload_pin_memory: ["Offloaded states in pinned host memory", (v) => zero(v) || (engine("fsdp")(v) && String(v.fsdp_cpu_offload) === "true")],
    fsdp_custom_sharded_layers: ["FSDP: embedding and head as units of their own", engine("fsdp")],
    distributed_optimizer: ["Megatron distributed optimizer", megatron],
    accounting: ["Accounting (runtime, or a framework's own formula)", engine("zero", "megatron")],
    zero_init: ["deepspeed.zero.Init", zero3],
    num_gpus: ["Number of GPUs (0 = as the parallel sizes below multiply: 1)", always],
    data_parallel_size: ["Data-parallel size (GPUs)", (v) => multi(v) || vllm(v)],
    tensor_parallel_size: ["Tensor-parallel size (GPUs)", notLcpp((v) => megatron(v) || infer(v))],
    pipeline_parallel_size: ["Pipeline-parallel size (stages)", (v) => megatron(v) || vllm(v)],
    context_parallel_size: ["Context-parallel size (GPUs)", megatron],
    expert_parallel_size: ["Expert-parallel size (GPUs)", megatron],
    expert_tensor_parallel_size: ["Expert tensor-parallel size (GPUs)", megatron],
    sequence_parallel: ["Sequence parallelism", megatron],
    virtual_pipeline_size: ["Virtual pipeline stages per GPU", megatron],
    num_microbatches: ["Micro-batches per step (pipeline; 0 = pipeline size)", megatron],
    gpus_per_node: ["GPUs per node", multi],
    runtime: ["Serving runtime", infer],
    gpu_memory_utilization: ["vLLM GPU memory utilization (fraction)", vllm],
    max_num_batched_tokens: ["vLLM max batched tokens (0 = vLLM's)", vllm],
    max_num_seqs: ["vLLM max sequences (0 = vLLM's)", vllm],
    kv_block_size: ["KV cache block (tokens)", vllm],
    max_model_len: ["vLLM max model length (tokens; 0 = the model's)", vllm],
    cuda_graphs: ["CUDA graph capture", vllm],
    vllm_version: ["vLLM version (empty = the newest modelled)", vllm],
    enforce_eager: ["vLLM --enforce-eager", vllm],
    quantization: ["vLLM --quantization", vllm],
    enable_chunked_prefill: ["vLLM chunked prefill", vllm],
    vllm_usage_context: ["vLLM defaults of", vllm],
    flashinfer_sampler: ["FlashInfer sampler", vllm],
    enable_expert_parallel: ["vLLM expert parallel", vllm],
    disable_custom_all_reduce: ["vLLM --disable-custom-all-reduce", vllm],
    enable_prefix_caching: ["vLLM prefix caching", vllm],
    kv_cache_memory_bytes: ["vLLM KV cache memory (bytes; 0 = from the budget)", vllm],
    disable_hybrid_kv_cache_manager: ["vLLM --disable-hybrid-kv-cache-manager", vllm],
    num_gpu_blocks_override: ["vLLM GPU blocks override (0 = none)", vllm],
    mamba_ssm_cache_dtype: ["Mamba SSM cache precision", vllm],
    vllm_model_runner: ["vLLM model runner", vllm],
    cudagraph_memory_estimate: ["CUDA graph memory in the profile", vllm],
    vllm_image: ["vLLM docker image (FlashInfer installed)", vllm],
    cpu_offload_gb: ["vLLM CPU offload (GiB of weights per GPU in host RAM)", vllm],
    swap_space: ["vLLM swap space (GiB per GPU)", vllm],
    n_gpu_layers: ["llama.cpp layers on the GPU (-ngl; -1 = all)", lcpp],
    ctx_size: ["llama.cpp context (tokens, all sequences; 0 = the model's)", lcpp],
    n_batch: ["llama.cpp logical batch (tokens)", lcpp],
    n_ubatch: ["llama.cpp physical batch (tokens per graph)", lcpp],
    n_parallel: ["llama.cpp parallel sequences (server slots)", lcpp],
    cache_type_k: ["llama.cpp K cache type", lcpp],
    cache_type_v: ["llama.cpp V cache type", lcpp],
    flash_attn: ["llama.cpp flash attention", lcpp],
    kv_unified: ["llama.cpp one KV buffer for all sequences", lcpp],
    swa_full: ["llama.cpp full-context sliding-window cache", lcpp],
    n_cpu_moe: ["llama.cpp layers whose experts stay in host memory", lcpp],
    no_kv_offload: ["llama.cpp KV cache in host memory", lcpp],
    override_tensor: ["llama.cpp tensors placed by pattern (-ot PATTERN=CPU or =CUDA0, comma-separated)", lcpp],
    gpu: ["GPU model", always],
    gpu_memory_bytes: ["Memory of one GPU in bytes, to override the GPU's (0 = the GPU's own)", always],
    host_memory_bytes: ["Host RAM per node in bytes, for the host verdict (0 = not checked)", always],
    cuda_context_bytes: ["CUDA context in bytes (-1 = the GPU's usual)", always],
    cublas_workspace_bytes: ["cuBLAS workspace (bytes; -1 = the GPU's)", always],
    expandable_segments: ["Allocator expandable segments", always],
    allocator_replay: ["Replay PyTorch's caching allocator (peak reserved)", replay],
    max_split_size_bytes: ["Allocator: largest block split (bytes; 0 = unlimited)", replayOn],
    garbage_collection_threshold: ["Allocator garbage-collection threshold (fraction; 0 = off)", replayOn],
    empty_cache_steps: ["Empty the allocator cache every N optimizer steps (0 = never)", (v) => replayOn(v) && train(v)],
    prior_workspace_segment_bytes: ["Segment an earlier run left (bytes; 0 = fresh process)", replayOn],
    images_per_sample: ["Images per sequence (0 = text only)", notLcpp(always)],
    image_height: ["Image height (pixels; 0 = the processor's)", notLcpp(always)],
    image_width: ["Image width (pixels; 0 = the processor's)", notLcpp(always)],
    video_frames: ["Video frames", notLcpp(always)],
    vision_training: ["Vision tower", train],
    min_pixels: ["Min pixels (Qwen2-VL; 0 = default)", notLcpp(always)],
    max_pixels: ["Max pixels (Qwen2-VL; 0 = default)", notLcpp(always)],
    encoder_cache: ["Encoder cache (serving)", notLcpp(infer)],
    load_vision_tower: ["Vision tower loaded (auto = the runtime's rule)", notLcpp(always)],
  };

  function label(name) {
    const l = LABELS[name];
    if (l) return l[0];
    const s = name.replace(/_/g, " ");
    return s.charAt(0).toUpperCase() + s.slice(1);
  }
  // values: name -> text of every parameter of the scenario
  function applies(name, values) {
    const l = LABELS[name];
    return !l || l[1](values);
  }

  const api = { label, applies, known: (name) => name in LABELS };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.LlmmemLabels = api;
})(typeof self !== "undefined" ? self : this);
