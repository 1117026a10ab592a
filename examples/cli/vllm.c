/* llmmem vllm MODEL [vllm serve flags]: a `vllm serve` command line pasted after
 * `llmmem vllm`, estimated as vLLM V1 sizes its KV cache, with the lines vLLM prints.
 *
 * MODEL is a preset name, a Hugging Face id (its preset, or its config.json in the local
 * HF cache), a config.json, or a directory holding one. vLLM's flags map
 * onto the library's parameters (the table below); flags that do not change GPU memory
 * are accepted and listed in a note; flags that change memory in a way the library
 * does not model are refused. llmmem's own options (--gpu, --vllm-version, --json,
 * --explain, --units and every parameter flag) may be mixed in. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How a vLLM flag is read. */
enum vkind {
    V_PARAM,       /* --flag VALUE -> the library parameter `param` */
    V_COUNT,       /* a count in vLLM's human-readable form (32k = 32000, 32K = 32768) */
    V_SWITCH,      /* --flag [true|false] -> bool parameter; --no-flag sets false */
    V_TRI,         /* --flag [true|false] / --no-flag -> auto/off/on parameter */
    V_DTYPE,       /* --dtype */
    V_KV_DTYPE,    /* --kv-cache-dtype */
    V_IGNORE,      /* takes a value, no effect on GPU memory */
    V_IGNORE_BARE, /* a switch, no effect on GPU memory */
    V_REFUSE       /* changes memory in a way not modelled */
};

typedef struct vflag {
    cli_names names; /* with '_'; written with '-' or '_' */
    enum vkind kind;
    const char *param;
} vflag;

/* vLLM's argument names (engine/arg_utils.py EngineArgs, entrypoints/openai/cli_args.py). */
static const vflag vflags[] = {
    {{"gpu_memory_utilization", NULL}, V_PARAM, "gpu_memory_utilization"},
    {{"max_model_len", NULL}, V_COUNT, "max_model_len"},
    {{"max_num_seqs", NULL}, V_COUNT, "max_num_seqs"},
    {{"max_num_batched_tokens", NULL}, V_COUNT, "max_num_batched_tokens"},
    {{"tensor_parallel_size", "tp"}, V_COUNT, "tensor_parallel_size"},
    {{"pipeline_parallel_size", "pp"}, V_COUNT, "pipeline_parallel_size"},
    {{"data_parallel_size", "dp"}, V_COUNT, "data_parallel_size"},
    {{"kv_cache_dtype", NULL}, V_KV_DTYPE, "kv_cache_dtype"},
    {{"enforce_eager", NULL}, V_SWITCH, "enforce_eager"},
    {{"quantization", "q"}, V_PARAM, "quantization"},
    {{"block_size", NULL}, V_COUNT, "kv_block_size"},
    {{"enable_chunked_prefill", NULL}, V_TRI, "enable_chunked_prefill"},
    {{"enable_prefix_caching", NULL}, V_TRI, "enable_prefix_caching"},
    {{"dtype", NULL}, V_DTYPE, NULL},
    {{"enable_expert_parallel", NULL}, V_SWITCH, "enable_expert_parallel"},
    {{"disable_custom_all_reduce", NULL}, V_SWITCH, "disable_custom_all_reduce"},
    {{"kv_cache_memory", "kv_cache_memory_bytes"}, V_COUNT, "kv_cache_memory_bytes"},
    {{"disable_hybrid_kv_cache_manager", NULL}, V_SWITCH, "disable_hybrid_kv_cache_manager"},
    {{"num_gpu_blocks_override", NULL}, V_COUNT, "num_gpu_blocks_override"},
    {{"mamba_ssm_cache_dtype", NULL}, V_KV_DTYPE, "mamba_ssm_cache_dtype"},
    {{"cpu_offload_gb", NULL}, V_PARAM, "cpu_offload_gb"},
    {{"swap_space", NULL}, V_PARAM, "swap_space"},
    /* no effect on GPU memory */
    {{"host", NULL}, V_IGNORE, NULL},
    {{"port", NULL}, V_IGNORE, NULL},
    {{"served_model_name", NULL}, V_IGNORE, NULL},
    {{"api_key", NULL}, V_IGNORE, NULL},
    {{"tokenizer", NULL}, V_IGNORE, NULL},
    {{"tokenizer_mode", NULL}, V_IGNORE, NULL},
    {{"revision", NULL}, V_IGNORE, NULL},
    {{"code_revision", NULL}, V_IGNORE, NULL},
    {{"tokenizer_revision", NULL}, V_IGNORE, NULL},
    {{"download_dir", NULL}, V_IGNORE, NULL},
    {{"load_format", NULL}, V_IGNORE, NULL},
    {{"seed", NULL}, V_IGNORE, NULL},
    {{"chat_template", NULL}, V_IGNORE, NULL},
    {{"tool_call_parser", NULL}, V_IGNORE, NULL},
    {{"reasoning_parser", NULL}, V_IGNORE, NULL},
    {{"distributed_executor_backend", NULL}, V_IGNORE, NULL},
    {{"uvicorn_log_level", NULL}, V_IGNORE, NULL},
    {{"max_log_len", NULL}, V_IGNORE, NULL},
    {{"max_logprobs", NULL}, V_IGNORE, NULL},
    {{"generation_config", NULL}, V_IGNORE, NULL},
    {{"response_role", NULL}, V_IGNORE, NULL},
    {{"root_path", NULL}, V_IGNORE, NULL},
    {{"allowed_origins", NULL}, V_IGNORE, NULL},
    {{"api_server_count", NULL}, V_IGNORE, NULL},
    {{"scheduling_policy", NULL}, V_IGNORE, NULL},
    {{"max_seq_len_to_capture", NULL}, V_IGNORE, NULL}, /* V0 only */
    {{"config_format", NULL}, V_IGNORE, NULL},
    {{"ssl_keyfile", NULL}, V_IGNORE, NULL},
    {{"ssl_certfile", NULL}, V_IGNORE, NULL},
    {{"model", NULL}, V_IGNORE, NULL}, /* handled before the table */
    {{"trust_remote_code", NULL}, V_IGNORE_BARE, NULL},
    {{"disable_log_requests", NULL}, V_IGNORE_BARE, NULL},
    {{"disable_log_stats", NULL}, V_IGNORE_BARE, NULL},
    {{"enable_log_requests", NULL}, V_IGNORE_BARE, NULL},
    {{"enable_auto_tool_choice", NULL}, V_IGNORE_BARE, NULL},
    {{"disable_frontend_multiprocessing", NULL}, V_IGNORE_BARE, NULL},
    {{"async_scheduling", NULL}, V_IGNORE_BARE, NULL},
    {{"no_async_scheduling", NULL}, V_IGNORE_BARE, NULL},
    /* change GPU memory in ways not modelled */
    {{"speculative_config", NULL}, V_REFUSE, NULL},
    {{"enable_lora", NULL}, V_REFUSE, NULL},
    {{"lora_modules", NULL}, V_REFUSE, NULL},
    {{"compilation_config", "O"}, V_REFUSE, NULL},
    {{"cuda_graph_sizes", NULL}, V_REFUSE, NULL},
    {{"cudagraph_capture_sizes", NULL}, V_REFUSE, NULL},
    {{"limit_mm_per_prompt", NULL}, V_REFUSE, NULL},
    {{"mm_processor_kwargs", NULL}, V_REFUSE, NULL},
    {{"hf_overrides", NULL}, V_REFUSE, NULL},
    {{"rope_scaling", NULL}, V_REFUSE, NULL},
    {{"kv_transfer_config", NULL}, V_REFUSE, NULL},
    {{"enable_sleep_mode", NULL}, V_REFUSE, NULL},
    {{"decode_context_parallel_size", "dcp"}, V_REFUSE, NULL},
    {{"enable_dbo", NULL}, V_REFUSE, NULL},
    {{"runner", NULL}, V_REFUSE, NULL},
    {{"task", NULL}, V_REFUSE, NULL},
};

static const cli_help_line vllm_help_flags[] = {
    {.text = "vLLM flags read (the rest listed in examples/cli/vllm.c: accepted without\n"
             "effect, or refused when they change memory in a way not modelled):\n"
             "  --gpu-memory-utilization, --max-model-len, --max-num-seqs, --max-num-batched-tokens,\n"
             "  --tensor-parallel-size/-tp, --pipeline-parallel-size/-pp, --data-parallel-size/-dp,\n"
             "  --kv-cache-dtype, --enforce-eager, --quantization/-q, --block-size,\n"
             "  --enable-chunked-prefill, --enable-prefix-caching, --dtype, --enable-expert-parallel,\n"
             "  --disable-custom-all-reduce, --kv-cache-memory, --disable-hybrid-kv-cache-manager,\n"
             "  --num-gpu-blocks-override, --mamba-ssm-cache-dtype, --cpu-offload-gb (host RAM in\n"
             "  host_bytes), --swap-space (up to 0.17; V1 allocates none)\n"
             "llmmem's own options:\n"
             "  --gpu NAME               the GPU (llmmem gpus); --gpu-memory-bytes overrides it\n"
             "  --vllm-version V         the vLLM version whose accounting applies (default 0.33.0)\n"
             "  --vllm-usage-context llm the LLM class's batch defaults (default serve)\n"},
    {.flag = "json"},
    {.flag = "explain"},
    {.flag = "units"},
    {0},
};
const cli_help cli_help_vllm = {
    "usage: llmmem vllm MODEL [vllm serve flags] [--gpu NAME] [--vllm-version V]\n"
    "                   [--json] [--explain] [--units GiB|GB|both]\n"
    "\n"
    "Estimates a `vllm serve MODEL ...` start: MODEL is a preset name, a Hugging Face id\n"
    "(org/name: its preset, or its config.json in the local HF cache), a config.json or a\n"
    "directory holding one; the flags are vLLM's own. Prints the lines vLLM logs (Model\n"
    "loading took, Available KV cache memory, GPU KV cache size, Maximum concurrency)\n"
    "and the estimate.\n"
    "\n",
    27, vllm_help_flags};

#define MAX_TEXT 64

typedef struct vstate {
    cli_opts o;
    char text[CLI_MAX_SETTINGS][MAX_TEXT]; /* values rewritten for the library */
    int ntext;
    char ignored[512];
    size_t nignored;
} vstate;

static const char *keep(vstate *s, const char *v)
{
    if (s->ntext >= CLI_MAX_SETTINGS)
        cli_usage_error("vllm: too many options");
    snprintf(s->text[s->ntext], MAX_TEXT, "%s", v);
    return s->text[s->ntext++];
}

static void add_param(vstate *s, const char *flag, const char *name, const char *value)
{
    cli_opts *o = &s->o;
    if (o->nparams >= CLI_MAX_SETTINGS)
        cli_usage_error("vllm: too many options");
    cli_setting *x = &o->params[o->nparams++];
    x->flag = flag;
    snprintf(x->name, sizeof x->name, "%s", name);
    x->value = value;
}

/* vLLM's human_readable_int (engine/arg_utils.py): k/m/g = 10^3, 10^6, 10^9 and
 * K/M/G = 2^10, 2^20, 2^30; a plain integer as it is. */
static const char *count_text(vstate *s, const char *flag, const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || x < 0)
        cli_usage_error("vllm: %s \"%s\": expected a count (32768, 32k, 32K)", flag, v);
    double mult = 1;
    if (*end) {
        switch (*end) {
        case 'k': mult = 1e3; break;
        case 'm': mult = 1e6; break;
        case 'g': mult = 1e9; break;
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1048576.0; break;
        case 'G': mult = 1073741824.0; break;
        default: cli_usage_error("vllm: %s \"%s\": expected a count (32768, 32k, 32K)", flag, v);
        }
        if (end[1])
            cli_usage_error("vllm: %s \"%s\": expected a count (32768, 32k, 32K)", flag, v);
    }
    char buf[MAX_TEXT];
    snprintf(buf, sizeof buf, "%.0f", x * mult);
    return keep(s, buf);
}

/* vLLM dtype names -> the library's. */
static const char *dtype_name(const char *flag, const char *v)
{
    static const struct {
        const char *vllm, *lib;
    } map[] = {{"auto", "auto"},     {"half", "fp16"},    {"float16", "fp16"},
               {"bfloat16", "bf16"}, {"float", "fp32"},   {"float32", "fp32"},
               {"fp8", "fp8"},       {"fp8_e4m3", "fp8"}, {"fp8_e5m2", "fp8"},
               {"fp8_inc", "fp8"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].vllm, v) == 0)
            return map[i].lib;
    cli_fail_msg(LLMMEM_E_UNSUPPORTED, EXIT_USAGE, "vllm: %s \"%s\" is not modelled", flag, v);
}

static bool is_bool_word(const char *v)
{
    return v && (strcmp(v, "true") == 0 || strcmp(v, "false") == 0 || strcmp(v, "True") == 0 ||
                 strcmp(v, "False") == 0);
}

static void note_ignored(vstate *s, const char *raw)
{
    if (s->nignored + strlen(raw) + 3 < sizeof s->ignored)
        s->nignored += (size_t)snprintf(s->ignored + s->nignored, sizeof s->ignored - s->nignored,
                                        "%s%s", s->nignored ? ", " : "", raw);
}

/* The parameters whose 0 means "vLLM's default" in the library but which vLLM itself
 * refuses at 0. */
static bool zero_refused(const char *param)
{
    static const char *const names[] = {"gpu_memory_utilization", "max_model_len", "max_num_seqs",
                                        "max_num_batched_tokens", "kv_block_size", "kv_cache_memory_bytes",
                                        "num_gpu_blocks_override"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i], param))
            return true;
    return false;
}

/* One vLLM flag at argv[*i]; returns false when it is not a vLLM flag of the table. */
static bool vllm_flag(vstate *s, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    /* -O0 .. -O3 (optimization level): -O0 runs eager without CUDA graphs; the
     * others compile and capture as the default level does */
    if (arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3' && arg[3] == '\0') {
        if (arg[2] == '0')
            add_param(s, arg, "enforce_eager", "true");
        else
            note_ignored(s, arg);
        return true;
    }
    const char *body = arg[1] == '-' ? arg + 2 : arg + 1;
    const char *eq = strchr(body, '=');
    char name[64];
    size_t n = eq ? (size_t)(eq - body) : strlen(body);
    if (n >= sizeof name)
        return false;
    memcpy(name, body, n);
    name[n] = '\0';
    char norm[64];
    cli_normalize(norm, sizeof norm, name);
    bool neg = strncmp(norm, "no_", 3) == 0;
    int k = cli_find(vflags, sizeof vflags / sizeof vflags[0], sizeof vflags[0], neg ? norm + 3 : norm);
    if (k < 0) {
        neg = false;
        k = cli_find(vflags, sizeof vflags / sizeof vflags[0], sizeof vflags[0], norm);
    }
    if (k < 0)
        return false;
    const vflag *f = &vflags[k];
    const char *value = eq ? eq + 1 : NULL;
    const bool takes = f->kind != V_SWITCH && f->kind != V_TRI && f->kind != V_IGNORE_BARE;
    if (takes && !value) {
        if (*i + 1 >= argc)
            cli_usage_error("vllm: option \"%s\" needs a value", arg);
        value = argv[++*i];
    }
    if ((f->kind == V_SWITCH || f->kind == V_TRI) && !value && *i + 1 < argc &&
        is_bool_word(argv[*i + 1]))
        value = argv[++*i];
    bool on = !neg && !(value && (value[0] == 'f' || value[0] == 'F'));
    /* vLLM refuses 0 where the library's parameter reads 0 as "the default": CacheConfig
     * gpu_memory_utilization (gt=0), block_size (gt=0); SchedulerConfig max_num_seqs,
     * max_num_batched_tokens (ge=1); a zero max_model_len, KV cache size or block count
     * leaves no request room */
    if ((f->kind == V_PARAM || f->kind == V_COUNT) && f->param && zero_refused(f->param) && value) {
        double x = 0.0;
        char *end = NULL;
        x = strtod(value, &end);
        if (end != value && x <= 0.0)
            cli_fail_msg(LLMMEM_E_OUT_OF_RANGE, EXIT_USAGE,
                         "vllm: %s %s: vLLM refuses a value of 0 or less (vllm/config/cache.py, scheduler.py)", arg,
                         value);
    }
    switch (f->kind) {
    case V_PARAM: add_param(s, arg, f->param, value); break;
    case V_COUNT: add_param(s, arg, f->param, count_text(s, arg, value)); break;
    case V_SWITCH: add_param(s, arg, f->param, on ? "true" : "false"); break;
    case V_TRI: add_param(s, arg, f->param, on ? "on" : "off"); break;
    case V_DTYPE:
        if (strcmp(value, "auto") != 0) {
            add_param(s, arg, "param_dtype", dtype_name(arg, value));
            add_param(s, arg, "compute_dtype", dtype_name(arg, value));
        }
        break;
    case V_KV_DTYPE: add_param(s, arg, f->param, dtype_name(arg, value)); break;
    case V_IGNORE:
    case V_IGNORE_BARE: note_ignored(s, arg); break;
    case V_REFUSE:
        cli_fail_msg(LLMMEM_E_UNSUPPORTED, EXIT_USAGE,
                     "vllm: %s changes GPU memory in a way llmmem does not model", arg);
    }
    return true;
}

/* MODEL, as vllm serve takes it (a folder or a Hugging Face id): a config.json or a folder
 * holding one; a preset (--preset's spellings); a Hugging Face id, as a preset's or from its
 * config.json in the local HF cache (llmmem_model_from_pretrained). */
static void set_model(vstate *s, const char *model)
{
    struct stat st;
    static char path[4096];
    if (stat(model, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(path, sizeof path, "%s/config.json", model);
        s->o.hf_config = path;
    } else if (stat(model, &st) == 0) {
        s->o.hf_config = model;
    } else {
        s->o.preset = model; /* resolved with --preset's rules, the errors saying where it looked */
    }
}

/* llmmem's own options between the vLLM flags: output flags, then any parameter. */
static bool own_flag(vstate *s, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    if (strncmp(arg, "--", 2) != 0)
        return false;
    const char *eq = strchr(arg, '=');
    char name[64];
    size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
    if (n >= sizeof name)
        return false;
    memcpy(name, arg + 2, n);
    name[n] = '\0';
    char norm[64];
    cli_normalize(norm, sizeof norm, name);
    if (strcmp(norm, "json") == 0) {
        s->o.json = true;
        return true;
    }
    if (strcmp(norm, "explain") == 0) {
        s->o.explain = true;
        return true;
    }
    const char *value = eq ? eq + 1 : NULL;
    if (strcmp(norm, "units") == 0 || cli_param_known(norm)) {
        if (!value) {
            if (*i + 1 >= argc)
                cli_usage_error("vllm: option \"%s\" needs a value", arg);
            value = argv[++*i];
        }
        if (strcmp(norm, "units") == 0) {
            if (strcmp(value, "GiB") == 0 || strcmp(value, "gib") == 0)
                s->o.units = UNITS_GIB;
            else if (strcmp(value, "GB") == 0 || strcmp(value, "gb") == 0)
                s->o.units = UNITS_GB;
            else if (strcmp(value, "both") == 0)
                s->o.units = UNITS_BOTH;
            else
                cli_usage_error("vllm: --units \"%s\": expected GiB, GB or both", value);
            return true;
        }
        add_param(s, arg, norm, value);
        return true;
    }
    return false;
}

static int result_json(char *buf, size_t cap, size_t *need, const void *r)
{
    return llmmem_result_to_json(buf, cap, need, r);
}

int cli_run_vllm(int argc, char **argv)
{
    static vstate s;
    memset(&s, 0, sizeof s);
    const char *model = NULL;
    add_param(&s, "vllm", "mode", "inference");
    add_param(&s, "vllm", "runtime", "vllm");
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (cli_is_help(arg)) {
            cli_help_print(stdout, &cli_help_vllm);
            return 0;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!model && strcmp(arg, "serve") == 0 && i + 1 < argc)
                continue; /* "vllm serve MODEL ..." pasted whole */
            if (model)
                cli_usage_error("vllm: unexpected argument \"%s\" (one MODEL)", arg);
            model = arg;
            continue;
        }
        if (strcmp(arg, "--model") == 0 && i + 1 < argc && !model) {
            model = argv[++i];
            continue;
        }
        if (vllm_flag(&s, argc, argv, &i) || own_flag(&s, argc, argv, &i))
            continue;
        cli_fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE,
                     "vllm: unknown option \"%s\" (not a vLLM flag llmmem knows; see llmmem vllm "
                     "--help)",
                     arg);
    }
    if (!model)
        cli_usage_error("vllm: MODEL missing (a preset name, a Hugging Face id, a config.json or its "
                        "directory)");
    set_model(&s, model);
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, &s.o, "vllm");
    llmmem_result *r = NULL;
    int rc = llmmem_result_new(&r);
    if (rc || (rc = llmmem_estimate(r, m, cfg)) != 0)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    if (s.o.json) {
        cli_print_json(result_json, r, false);
        if (s.nignored)
            fprintf(stderr, "llmmem: note: vLLM flags without effect on GPU memory: %s\n",
                    s.ignored);
    } else {
        cli_print_table(r, m, cfg, s.o.units); /* vLLM's lines first */
        if (s.nignored)
            printf("\nvLLM flags without effect on GPU memory: %s\n", s.ignored);
        if (s.o.explain)
            cli_print_terms(r, s.o.units);
    }
    llmmem_result_free(r);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}
