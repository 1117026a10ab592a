/* Vision towers of the multimodal configs (llava: CLIP + projector; qwen2_vl:
 * its ViT and merger): their parameter count and the geometry the vision
 * estimator needs (src/memory/vision.c); gemma3's SigLIP + projector are
 * counted by the registry (a composite), its geometry comes from there. */
#include "input/hfctx.h"

#include <string.h>

/* ---- vision towers ------------------------------------------------------- */

/* CLIP vision model (modeling_clip.py CLIPVisionTransformer) + LLaVA projector
 * (modeling_llava.py LlavaMultiModalProjector), as in formulas.md 1.2. */
static int llava_vision(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *root,
                        int64_t text_h)
{
    ctx c = {.doc = doc, .o = llmmem__json_get(root, "vision_config"), .prefix = "vision_config."};
    if (c.o && llmmem__json_type(c.o) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config", "expected an object");
    /* LlavaConfig's default vision_config: CLIP ViT-L/14-336 */
    int64_t h = 1024, f = 4096, L = 24, img = 336, p = 14, ch = 3, heads = 16;
    int rc;
    if (c.o) {
        char mt[64] = "clip_vision_model";
        if ((rc = llmmem__json_read_str(mt, sizeof mt, doc, c.o, "model_type", kp(&c, "model_type"),
                                        false)))
            return rc;
        if (strcmp(mt, "clip_vision_model") != 0)
            return llmmem__json_error_at(doc, c.o, LLMMEM_E_UNSUPPORTED, "vision_config.model_type",
                                         "vision tower \"%s\" not modelled (only clip_vision_model)",
                                         mt);
        /* CLIPVisionConfig defaults when a key is absent */
        if ((rc = geti(&h, &c, "hidden_size", 768, 1, MAX_DIM)) ||
            (rc = geti(&f, &c, "intermediate_size", 3072, 1, MAX_DIM)) ||
            (rc = geti(&L, &c, "num_hidden_layers", 12, 1, MAX_LAYERS)) ||
            (rc = geti(&img, &c, "image_size", 224, 1, 1 << 20)) ||
            (rc = geti(&p, &c, "patch_size", 32, 1, 1 << 20)) ||
            (rc = geti(&ch, &c, "num_channels", 3, 1, 64)) ||
            (rc = geti(&heads, &c, "num_attention_heads", 12, 1, MAX_HEADS)))
            return rc;
    }
    if (img < p)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config.image_size",
                                     "image_size %lld is smaller than patch_size %lld",
                                     (long long)img, (long long)p);
    int64_t np = (img / p) * (img / p) + 1;
    llmmem__ovf o = {0};
    uint64_t v = (uint64_t)h;                                        /* class_embedding */
    v = llmmem__add(&o, v, llmmem__mul3(&o, ch, p * p, h));          /* patch conv, no bias */
    v = llmmem__add(&o, v, llmmem__mul(&o, np, h));                  /* position_embedding */
    v = llmmem__add(&o, v, 2 * h);                                   /* pre_layrnorm */
    uint64_t layer = llmmem__mul(&o, 4, h * h + h)                   /* q,k,v,out with bias */
                     + (uint64_t)(h * f + f) + (uint64_t)(f * h + h) /* fc1, fc2 */
                     + (uint64_t)(4 * h);                            /* layer_norm1, 2 */
    v = llmmem__add(&o, v, llmmem__mul(&o, L, layer));
    v = llmmem__add(&o, v, 2 * h); /* post_layernorm */
    /* projector: linear_1 (h * n_feature_layers -> text h), linear_2 (text h -> text h) */
    int64_t nfl = 1;
    const llmmem__jnode *vfl = llmmem__json_get(root, "vision_feature_layer");
    if (vfl && llmmem__json_type(vfl) == LLMMEM__J_ARRAY)
        nfl = llmmem__json_array_size(vfl);
    bool pbias = true;
    ctx rc_ = {.doc = doc, .o = root, .prefix = ""};
    if ((rc = getb(&pbias, &rc_, "multimodal_projector_bias", true)))
        return rc;
    uint64_t pin = (uint64_t)(h * nfl);
    uint64_t proj = llmmem__mul(&o, pin, text_h) + (pbias ? (uint64_t)text_h : 0);
    proj = llmmem__add(&o, proj, llmmem__mul(&o, text_h, text_h) + (pbias ? (uint64_t)text_h : 0));
    v = llmmem__add(&o, v, proj);
    if (o.overflow || v > INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vision_config: parameter count overflows");
    m->vision_params = (int64_t)v;
    /* The tower as vision.c runs it (modeling_llava.py get_image_features):
     * hidden_states[vision_feature_layer] of CLIPVisionModel(output_hidden_states)
     * is the output of layer L+1+fl (fl < 0; index 0 = pre_layrnorm output),
     * the largest index of a list; the 'default' strategy drops the CLS token. */
    int64_t run = 0;
    if (!vfl || llmmem__json_type(vfl) == LLMMEM__J_NULL) {
        run = L - 1; /* LlavaConfig default vision_feature_layer = -2 */
    } else {
        const llmmem__jnode *it = llmmem__json_type(vfl) == LLMMEM__J_ARRAY ? llmmem__json_first(vfl) : vfl;
        for (; it; it = llmmem__json_type(vfl) == LLMMEM__J_ARRAY ? llmmem__json_next(it) : NULL) {
            double x = llmmem__json_type(it) == LLMMEM__J_NUMBER ? llmmem__json_number(it) : 1e300;
            /* range first: converting a double outside int64 (or NaN) is undefined */
            if (!(x >= (double)-(L + 1) && x <= (double)L) || x != (double)(int64_t)x)
                return llmmem__json_error_at(doc, it, LLMMEM_E_OUT_OF_RANGE, "vision_feature_layer",
                                             "expected a layer index in [-%lld, %lld]",
                                             (long long)(L + 1), (long long)L);
            int64_t k = (int64_t)x < 0 ? L + 1 + (int64_t)x : (int64_t)x;
            run = k > run ? k : run;
        }
    }
    char strat[32] = "default";
    if ((rc = llmmem__json_read_str(strat, sizeof strat, doc, root, "vision_feature_select_strategy",
                                    "vision_feature_select_strategy", false)))
        return rc;
    if (strcmp(strat, "default") != 0 && strcmp(strat, "full") != 0)
        return llmmem__json_error_at(doc, llmmem__json_get(root, "vision_feature_select_strategy"),
                                     LLMMEM_E_SCHEMA, "vision_feature_select_strategy",
                                     "expected \"default\" or \"full\", got \"%s\"", strat);
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_CLIP;
    t->hidden = h, t->layers = L, t->heads = heads, t->intermediate = f;
    t->patch_size = p, t->image_size = img;
    t->projector_params = (int64_t)proj;
    t->feature_layer = run;
    t->drop_cls = strcmp(strat, "default") == 0;
    t->tokens_per_image = (img / p) * (img / p) + (t->drop_cls ? 0 : 1);
    return 0;
}

/* Qwen2-VL vision tower (modeling_qwen2_vl.py Qwen2VisionTransformerPretrainedModel). */
static int qwen2vl_vision(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *root,
                          int64_t text_h)
{
    ctx c = {.doc = doc, .o = llmmem__json_get(root, "vision_config"), .prefix = "vision_config."};
    if (c.o && llmmem__json_type(c.o) != LLMMEM__J_OBJECT)
        return llmmem__json_error_at(doc, c.o, LLMMEM_E_SCHEMA, "vision_config", "expected an object");
    /* Qwen2VLVisionConfig defaults (an absent vision_config reads as all defaults) */
    int64_t depth, e, out_h, ch, p, m2, tp, heads;
    double r = 4.0;
    int rc;
    if ((rc = geti(&depth, &c, "depth", 32, 1, MAX_LAYERS)) ||
        (rc = geti(&e, &c, "embed_dim", 1280, 1, MAX_DIM)) ||
        (rc = geti(&out_h, &c, "hidden_size", 3584, 1, MAX_DIM)) ||
        (rc = llmmem__json_read_f64(&r, doc, c.o, "mlp_ratio", kp(&c, "mlp_ratio"), 0.0, 64.0,
                                    false)) ||
        (rc = geti(&ch, &c, "in_channels", 3, 1, 64)) ||
        (rc = geti(&p, &c, "patch_size", 14, 1, 1 << 20)) ||
        (rc = geti(&m2, &c, "spatial_merge_size", 2, 1, 64)) ||
        (rc = geti(&tp, &c, "temporal_patch_size", 2, 1, 64)) ||
        (rc = geti(&heads, &c, "num_heads", 16, 1, MAX_HEADS)))
        return rc;
    (void)text_h;
    int64_t mh = (int64_t)((double)e * r); /* VisionMlp hidden = int(embed_dim * mlp_ratio) */
    llmmem__ovf o = {0};
    uint64_t v = llmmem__mul3(&o, (uint64_t)(ch * tp), (uint64_t)(p * p), (uint64_t)e); /* Conv3d, no bias */
    uint64_t blk = (uint64_t)(4 * e)                                          /* norm1, norm2 */
                   + llmmem__mul(&o, e, 3 * e) + (uint64_t)(3 * e)           /* qkv */
                   + llmmem__mul(&o, e, e) + (uint64_t)e                     /* proj */
                   + llmmem__mul(&o, e, mh) + (uint64_t)mh                   /* fc1 */
                   + llmmem__mul(&o, mh, e) + (uint64_t)e;                   /* fc2 */
    v = llmmem__add(&o, v, llmmem__mul(&o, depth, blk));
    int64_t me = m2 * m2 * e;
    uint64_t merger = (uint64_t)(2 * e);                                         /* merger.ln_q */
    merger = llmmem__add(&o, merger, llmmem__mul(&o, me, me) + (uint64_t)me);       /* merger mlp.0 */
    merger = llmmem__add(&o, merger, llmmem__mul(&o, me, out_h) + (uint64_t)out_h); /* merger mlp.2 */
    v = llmmem__add(&o, v, merger);
    if (o.overflow || v > INT64_MAX)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "vision_config: parameter count overflows");
    m->vision_params = (int64_t)v;
    /* The tower as vision.c runs it: image size is dynamic (smart_resize in
     * image_processing_qwen2_vl.py), the PatchMerger is the projector. */
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_QWEN2VL;
    t->hidden = e, t->layers = depth, t->heads = heads, t->intermediate = mh;
    t->patch_size = p, t->temporal_patch = tp, t->merge_size = m2;
    t->projector_params = (int64_t)merger;
    t->feature_layer = depth;
    return 0;
}

/* Gemma 3 vision: SigLIP (modeling_siglip.py SiglipVisionTransformer) and
 * Gemma3MultiModalProjector (modeling_gemma3.py: avg-pool to
 * mm_tokens_per_image, Gemma3RMSNorm, mm_input_projection_weight), counted by
 * the registry (fam_multimodal.c): the geometry the vision estimator runs. */
static int gemma3_geometry(struct llmmem_model *m)
{
    const llmmem__qvals *v = &m->mm.tq[0];
    const int64_t h = llmmem__qvals_get(v, "h", 0), L = llmmem__qvals_get(v, "L", 0);
    const int64_t img = llmmem__qvals_get(v, "img", 0), p = llmmem__qvals_get(v, "p", 1);
    const int64_t mm = llmmem__qvals_get(&m->mm.q, "mm", 256);
    const int64_t side = img / p; /* patches_per_image */
    int64_t tps = 1;              /* tokens_per_side = int(mm_tokens_per_image ** 0.5) */
    while ((tps + 1) * (tps + 1) <= mm)
        tps++;
    if (side < 1 || side % tps != 0) {
        /* AvgPool2d(kernel_size = side // tps) cannot run: the count stands, the geometry not */
        llmmem__model_note(m, "vision: %lld patches per side do not pool evenly to %lld tokens per side "
                              "(mm_tokens_per_image): image memory not estimated",
                           (long long)side, (long long)tps);
        return 0;
    }
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_SIGLIP;
    t->hidden = h, t->layers = L, t->heads = llmmem__qvals_get(v, "a", 1);
    t->intermediate = llmmem__qvals_get(v, "f", 0);
    t->patch_size = p, t->image_size = img;
    t->projector_params = m->mm.own_params;
    t->feature_layer = L;
    t->tokens_per_image = tps * tps;
    return 0;
}

/* Qwen3.5 vision (modeling_qwen3_5.py Qwen3_5VisionModel; vLLM runs it as
 * qwen3_vl.py Qwen3_VisionTransformer): Qwen2-VL's dynamic resolution with
 * a learned position table interpolated per image, counted by the registry
 * (fam_multimodal.c q_qwen3_5_vision); the patch merger (LayerNorm, square
 * Linear of merge^2 x h, Linear to out_hidden_size, all biased) is the
 * projector. The pixel bounds are the checkpoints' processor size
 * (preprocessor_config.json of the Qwen3.5 repositories: shortest_edge
 * 65536, longest_edge 16777216), not in config.json. */
static int qwen3_5_geometry(struct llmmem_model *m)
{
    const llmmem__qvals *v = &m->mm.tq[0];
    const int64_t h = llmmem__qvals_get(v, "h", 0), mg = llmmem__qvals_get(v, "m", 0);
    const int64_t oh = llmmem__qvals_get(v, "oh", 0), mh = h * mg * mg;
    struct llmmem__vision_tower *t = &m->vision;
    t->kind = LLMMEM__V_QWEN3VL;
    t->hidden = h, t->layers = llmmem__qvals_get(v, "L", 0), t->heads = llmmem__qvals_get(v, "a", 1);
    t->intermediate = llmmem__qvals_get(v, "f", 0);
    t->patch_size = llmmem__qvals_get(v, "p", 0), t->temporal_patch = llmmem__qvals_get(v, "tp", 0);
    t->merge_size = mg;
    t->pos_embed = llmmem__qvals_get(v, "npe", 0);
    t->min_pixels = 65536, t->max_pixels = 16777216;
    t->projector_params = 2 * h + mh * mh + mh + oh * mh + oh;
    t->feature_layer = t->layers;
    return 0;
}

int llmmem__hf_vision_geometry(struct llmmem_model *m)
{
    if (m->mm.comp && !strcmp(m->mm.comp->type, "gemma3") && m->mm.tower[0] &&
        !strcmp(m->mm.tower[0]->type, "siglip_vision_model"))
        return gemma3_geometry(m);
    if (m->mm.comp && m->mm.tower[0] &&
        (!strcmp(m->mm.tower[0]->type, "qwen3_5_vision") || !strcmp(m->mm.tower[0]->type, "qwen3_5_moe_vision")))
        return qwen3_5_geometry(m);
    return 0;
}

int llmmem__hf_towers(struct llmmem_model *m, const char *type, const llmmem__json *doc,
                      const llmmem__jnode *root)
{
    if (!strcmp(type, "llava"))
        return llava_vision(m, doc, root, m->hidden_size);
    if (!strcmp(type, "qwen2_vl"))
        return qwen2vl_vision(m, doc, root, m->hidden_size);
    return 0;
}
