/* The calls a scheduler makes in a loop, per call: llmmem_estimate under every
 * training engine and both inference runtimes, llmmem_result_to_json, model
 * construction from presets and from published config.json files, and the
 * planner's inverse questions. Each case cycles through 14 models of 1.2B to
 * 671B (11 presets, 3 raw sizes) or through files, each input with its own
 * configuration (workloads.h), and is timed in 7 rounds (bench.h): the table
 * shows the median and the fastest round. The estimate rows carry the issue-7
 * target of 1 us per estimate; a Megatron estimate models each pipeline stage
 * in turn, so its rows show the time per stage against the target and the
 * time per call in the note.
 *
 * `make bench` runs it from the source tree (the config.json files are read
 * from test/data/configs/published). Usage: bench_estimate. */
#include "workloads.h"

typedef struct json_ctx {
    llmmem_result *res[2 * BENCH_MODELS];
    int n;
    char buf[1 << 16];
} json_ctx;

static int body_to_json(void *p, long i)
{
    json_ctx *j = p;
    size_t needed = 0;
    return llmmem_result_to_json(j->buf, sizeof j->buf, &needed, j->res[i % j->n]);
}

static int body_preset(void *p, long i)
{
    (void)p;
    const int np = (int)(sizeof bench_presets / sizeof bench_presets[0]);
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_preset(&m, bench_presets[i % np]);
    llmmem_model_free(m);
    return rc;
}

static const char *name_preset(void *p, long i)
{
    (void)p;
    return bench_presets[i];
}

/* Published config.json files (test/data/configs/published), 1B to 671B. */
static const char *const hf_files[] = {"llama-3.2-1b", "qwen2.5-7b", "llama-3.1-8b", "gemma-2-9b",
                                       "qwen3-30b-a3b", "mixtral-8x7b", "llama-3.1-70b", "qwen2.5-72b",
                                       "qwen3-235b-a22b", "llama-3.1-405b", "deepseek-v3", "gpt-oss-120b"};
#define HF_FILES (int)(sizeof hf_files / sizeof hf_files[0])

/* NULL, or the path of the first file that cannot be read. */
static const char *hf_load(bench_texts *t, char *path, size_t cap)
{
    for (int i = 0; i < HF_FILES; i++) {
        snprintf(path, cap, "test/data/configs/published/%s.json", hf_files[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            return path;
        size_t len = fread(t->text[t->n], 1, sizeof t->text[t->n], f);
        fclose(f);
        bench_texts_add(t, hf_files[i], len);
    }
    return NULL;
}

static int body_max_batch(void *p, long i)
{
    bench_inputs *s = p;
    const bench_input *in = &s->in[i % s->n];
    int64_t v = 0;
    return llmmem_plan_max_batch(&v, in->model, in->cfg);
}

static int body_min_gpus(void *p, long i)
{
    bench_inputs *s = p;
    const bench_input *in = &s->in[i % s->n];
    int64_t v = 0;
    return llmmem_plan_min_gpus(&v, in->model, in->cfg);
}

/* Pipeline stages estimated per Megatron input, on average over the cycle. */
static double mean_stages(const bench_inputs *s)
{
    double sum = 0;
    for (int k = 0; k < s->n; k++) {
        int64_t pp = 1;
        bench_check(llmmem_config_get_i64(&pp, s->in[k].cfg, LLMMEM_P_PIPELINE_PARALLEL), "get pp");
        sum += (double)pp;
    }
    return sum / s->n;
}

static const struct {
    const char *name;
    bench_setup setup;
    bool megatron;
} engines[] = {
    {"estimate: single GPU", setup_single, false},
    {"estimate: DDP, 2-8 GPUs", setup_ddp, false},
    {"estimate: ZeRO-1, 8-64 GPUs, offload", setup_zero1, false},
    {"estimate: ZeRO-2, 8-64 GPUs, offload", setup_zero2, false},
    {"estimate: ZeRO-3, 8-64 GPUs, offload, hpZ", setup_zero3, false},
    {"estimate: FSDP, 16-64 GPUs, 4 strategies", setup_fsdp, false},
    {"estimate: Megatron TP/PP/VPP/EP, per stage", setup_megatron, true},
    {"estimate: Megatron-DS, ZeRO 0-2, per stage", setup_megatron_ds, true},
    {"estimate: inference HF generate, TP 1-8", setup_hf, false},
    {"estimate: inference vLLM, TP 1-8", setup_vllm, false},
    {"estimate: single GPU + allocator replay", setup_single_replay, false},
    {"estimate: HF generate + allocator replay", setup_hf_replay, false},
};
/* The allocator replay's rows (the last two) are held to 20 us, the others to 1 us. */
#define REPLAY_ROWS 2
#define ENGINES (int)(sizeof engines / sizeof engines[0])

int main(void)
{
    static bench_models ms;
    static bench_inputs sets[ENGINES];
    char note[256];
    bench_models_load(&ms);
    printf("bench_estimate: per call; each case cycles through %d models (1.2B to 671B), %d rounds\n\n",
           BENCH_MODELS, BENCH_ROUNDS);
    bench_header();
    for (int e = 0; e < ENGINES; e++) {
        bench_inputs_build(&sets[e], engines[e].name, &ms, engines[e].setup);
        bench_case c = bench_estimate_case(&sets[e]);
        bench_stat st = bench_time(&c);
        if (!engines[e].megatron) {
            bool replay = e >= ENGINES - REPLAY_ROWS;
            bench_row(engines[e].name, st, replay ? 20e-6 : 1e-6, "us",
                      replay ? "peak_reserved from the replay of the caching allocator" : NULL);
            continue;
        }
        /* one estimate per pipeline stage: the target is per stage */
        const double stages = mean_stages(&sets[e]);
        snprintf(note, sizeof note, "per pipeline stage; %.2f stages per input on average: %.3f us per call",
                 stages, st.median * 1e6);
        st.median /= stages;
        st.min /= stages;
        st.wall /= stages;
        bench_row(engines[e].name, st, 1e-6, "us", note);
    }

    /* result_to_json of the ZeRO-3 and the HF inference results, in turn */
    static json_ctx j;
    for (int k = 0; k < BENCH_MODELS; k++)
        for (int s = 0; s < 2; s++) {
            bench_inputs *set = &sets[s ? 8 : 4];
            bench_check(llmmem_result_new(&j.res[j.n]), "result_new");
            bench_check(llmmem_estimate(j.res[j.n++], set->in[k].model, set->in[k].cfg), set->in[k].label);
        }
    bench_case cj = {"result_to_json", body_to_json, NULL, &j, j.n};
    bench_row("result_to_json (ZeRO-3 and inference results)", bench_time(&cj), 0, "us", NULL);

    bench_case cp = {"model_from_preset", body_preset, name_preset, NULL,
                     (long)(sizeof bench_presets / sizeof bench_presets[0])};
    bench_row("model_from_preset + free (11 presets)", bench_time(&cp), 0, "us", NULL);

    static bench_texts h;
    char path[256];
    const char *missing = hf_load(&h, path, sizeof path);
    if (missing) {
        snprintf(note, sizeof note, "%.200s not found (run from the source tree)", missing);
        bench_row_na("model_from_hf_json + free", note);
    } else {
        bench_case ch = bench_texts_case(&h);
        snprintf(note, sizeof note, "%d published config.json files, %zu-%zu bytes", h.n, h.lo, h.hi);
        bench_row("model_from_hf_json + free", bench_time(&ch), 0, "us", note);
    }

    bench_case cb = {"plan_max_batch", body_max_batch, bench_name_input, &sets[4], sets[4].n};
    bench_row("plan_max_batch (ZeRO-3 inputs)", bench_time(&cb), 0, "us", "a search of estimates");
    bench_case cg = {"plan_min_gpus", body_min_gpus, bench_name_input, &sets[5], sets[5].n};
    bench_row("plan_min_gpus (FSDP inputs)", bench_time(&cg), 0, "us", "a search of estimates");

    for (int k = 0; k < j.n; k++)
        llmmem_result_free(j.res[k]);
    for (int e = 0; e < ENGINES; e++)
        bench_inputs_free(&sets[e]);
    bench_models_free(&ms);
    return bench_exit_status();
}
