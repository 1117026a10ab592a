/* Reading a plan: counts, the kept layouts and the plan as JSON. */
#include "plan/plan.h"

static const char *const reject_names[LLMMEM__PLAN_REJECTS] = {"indivisible", "oom", "unsupported", "batch"};

const char *llmmem_plan_reject_name(int reason)
{
    return reason >= 0 && reason < LLMMEM__PLAN_REJECTS ? reject_names[reason] : NULL;
}

int llmmem_plan_count(const llmmem_plan *plan) { return plan ? plan->count : 0; }

int64_t llmmem_plan_candidates(const llmmem_plan *plan) { return plan ? plan->candidates : 0; }

int64_t llmmem_plan_global_batch(const llmmem_plan *plan) { return plan ? plan->global_batch : 0; }

int llmmem_plan_note_count(const llmmem_plan *plan) { return plan ? plan->notes : 0; }

const char *llmmem_plan_note(const llmmem_plan *plan, int index)
{
    return plan && index >= 0 && index < plan->notes ? plan->note[index] : NULL;
}

int64_t llmmem_plan_rejected(const llmmem_plan *plan, int reason)
{
    if (!plan || reason < 0 || reason >= LLMMEM__PLAN_REJECTS)
        return 0;
    return plan->rejected[reason];
}

static const llmmem__plan_layout *layout_at(const llmmem_plan *plan, int index, const void *out, const char *fn)
{
    if (!plan || !out) {
        llmmem__error(LLMMEM_E_INVALID_ARG, "%s: NULL argument", fn);
        return NULL;
    }
    if (index < 0 || index >= plan->count) {
        llmmem__error(LLMMEM_E_OUT_OF_RANGE, "%s: layout %d: the plan has %d", fn, index, plan->count);
        return NULL;
    }
    return &plan->slot[plan->order[index]];
}

static int layout_status(const llmmem_plan *plan, const void *out)
{
    return !plan || !out ? LLMMEM_E_INVALID_ARG : LLMMEM_E_OUT_OF_RANGE;
}

int llmmem_plan_config(llmmem_config **out, const llmmem_plan *plan, int index)
{
    const llmmem__plan_layout *l = layout_at(plan, index, out, "llmmem_plan_config");
    if (!l)
        return layout_status(plan, out);
    return llmmem_config_clone(out, &l->cfg);
}

int llmmem_plan_step_time(double *out, const llmmem_plan *plan, int index)
{
    const llmmem__plan_layout *l = layout_at(plan, index, out, "llmmem_plan_step_time");
    if (!l)
        return layout_status(plan, out);
    *out = l->time.total_s;
    return LLMMEM_OK;
}

int llmmem_plan_peak_bytes(uint64_t *out, const llmmem_plan *plan, int index)
{
    const llmmem__plan_layout *l = layout_at(plan, index, out, "llmmem_plan_peak_bytes");
    if (!l)
        return layout_status(plan, out);
    *out = l->peak_allocated;
    return LLMMEM_OK;
}

static const char *enum_name(int param, int64_t v)
{
    const char *s = llmmem_param_enum_name(param, v);
    return s ? s : "?";
}

/* A training layout's sizes and engine options (those its engine's variants set). */
static void json_training_options(llmmem__buf *b, const struct llmmem_config *c)
{
    llmmem__buf_printf(b, "\"engine\":\"%s\",", enum_name(LLMMEM_P_ENGINE, c->engine));
    llmmem__buf_printf(b, "\"dp\":%lld,\"tp\":%lld,\"pp\":%lld,\"cp\":%lld,\"ep\":%lld,",
                       (long long)c->dp, (long long)c->tp, (long long)c->pp, (long long)c->cp,
                       (long long)c->ep);
    const llmmem__engine *e = llmmem__engine_of(LLMMEM_P_ENGINE, c->engine);
    for (int k = 0; e && e->plan_options && e->plan_options[k]; k++) {
        const llmmem__param_info *p = llmmem__param_find(e->plan_options[k]);
        const int64_t v = *(const int64_t *)(const void *)((const char *)c + p->offset);
        if (p->type == LLMMEM_TYPE_ENUM)
            llmmem__buf_printf(b, "\"%s\":\"%s\",", p->name, enum_name(p->id, v));
        else if (p->type == LLMMEM_TYPE_BOOL)
            llmmem__buf_printf(b, "\"%s\":%s,", p->name, v ? "true" : "false");
        else
            llmmem__buf_printf(b, "\"%s\":%lld,", p->name, (long long)v);
    }
    llmmem__buf_printf(b, "\"activation_checkpointing\":\"%s\",",
                       enum_name(LLMMEM_P_CHECKPOINTING, c->checkpointing));
    llmmem__buf_printf(b, "\"micro_batch_size\":%lld,\"gradient_accumulation_steps\":%lld,",
                       (long long)c->micro_batch_size, (long long)c->grad_accum_steps);
}

/* The step time by part, and the FLOPs. */
static void json_times(llmmem__buf *b, const llmmem__steptime *t)
{
    const struct {
        const char *k;
        double v;
    } times[] = {{"step_time_s", t->total_s}, {"compute_s", t->compute_s}, {"bubble_s", t->bubble_s},
                 {"comm_s", t->comm_s}, {"offload_s", t->offload_s}, {"overhead_s", t->overhead_s}};
    for (size_t i = 0; i < LLMMEM_ARRAY_LEN(times); i++) {
        llmmem__buf_printf(b, "\"%s\":", times[i].k);
        llmmem__buf_f64(b, times[i].v);
        llmmem__buf_printf(b, ",");
    }
    /* whole FLOPs: "%.0f" has no decimal point, so no locale can change it */
    llmmem__buf_printf(b, "\"flops\":%.0f,", t->flops);
}

static void json_layout(llmmem__buf *b, const llmmem__plan_layout *l, int rank, int mode)
{
    const struct llmmem_config *c = &l->cfg;
    llmmem__buf_printf(b, "{\"rank\":%d,", rank);
    if (mode == LLMMEM__MODE_INFERENCE)
        llmmem__buf_printf(b, "\"tp\":%lld,\"replicas\":%lld,\"batch_size\":%lld,", (long long)c->tp,
                           (long long)c->dp, (long long)c->batch_size);
    else
        json_training_options(b, c);
    json_times(b, &l->time);
    llmmem__buf_printf(b,
                       "\"peak_allocated_bytes\":%llu,\"peak_reserved_bytes\":%llu,"
                       "\"total_bytes_per_gpu\":%llu,\"gpu_memory_bytes\":%llu,\"peak_phase\":\"%s\","
                       "\"components\":{",
                       (unsigned long long)l->peak_allocated, (unsigned long long)l->peak_reserved,
                       (unsigned long long)l->total, (unsigned long long)l->capacity,
                       llmmem_phase_name((int)l->peak_phase) ? llmmem_phase_name((int)l->peak_phase) : "?");
    for (int k = 0; k < LLMMEM__COMPONENTS; k++)
        llmmem__buf_printf(b, "%s\"%s\":%llu", k ? "," : "", llmmem_component_name(k),
                           (unsigned long long)l->comp[k]);
    llmmem__buf_printf(b, "}}");
}

int llmmem_plan_to_json(char *buf, size_t cap, size_t *needed, const llmmem_plan *plan)
{
    if (!plan || (!buf && cap > 0))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_plan_to_json: %s is NULL",
                             !plan ? "plan" : "buf");
    llmmem__buf b = {buf, cap, 0};
    const llmmem_plan *p = plan;
    llmmem__buf_printf(&b, "{\"mode\":\"%s\",\"model_type\":", enum_name(LLMMEM_P_MODE, p->mode));
    llmmem__buf_json_string(&b, p->model_type);
    llmmem__buf_printf(&b, ",\"gpu\":\"%s\",\"num_gpus\":%lld,\"%s\":%lld,", enum_name(LLMMEM_P_GPU, p->gpu),
                       (long long)p->num_gpus, p->mode == LLMMEM__MODE_INFERENCE ? "batch_size" : "global_batch",
                       (long long)p->global_batch);
    llmmem__buf_printf(&b, "\"candidates\":%lld,\"feasible\":%lld,\"estimates\":%lld,\"rejected\":{",
                       (long long)p->candidates, (long long)p->feasible, (long long)p->estimates);
    for (int i = 0; i < LLMMEM__PLAN_REJECTS; i++)
        llmmem__buf_printf(&b, "%s\"%s\":%lld", i ? "," : "", reject_names[i], (long long)p->rejected[i]);
    llmmem__buf_printf(&b, "},\"notes\":[");
    for (int i = 0; i < p->notes; i++) {
        llmmem__buf_printf(&b, i ? "," : "");
        llmmem__buf_json_string(&b, p->note[i]);
    }
    llmmem__buf_printf(&b, "],\"layouts\":[");
    for (int i = 0; i < p->count; i++) {
        if (i)
            llmmem__buf_printf(&b, ",");
        json_layout(&b, &p->slot[p->order[i]], i + 1, p->mode);
    }
    llmmem__buf_printf(&b, "]}");
    return llmmem__buf_finish(&b, needed);
}
