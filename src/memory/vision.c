/* Vision-language accounting: image tokens per sequence, the vision tower's
 * saved activations, its forward working set and its trainable parameters.
 * Text-only models (no tower) contribute nothing. docs/vision.md states every
 * formula; the sources are the transformers modeling files named below. */
#include "memory/vision.h"

#include <math.h>
#include <string.h>

/* How the tower runs in this configuration. */
typedef struct vrun {
    uint64_t cb;      /* compute (matmul output) bytes */
    uint64_t rb;      /* residual stream / LayerNorm input bytes */
    bool amp;         /* fp32 weights under torch.autocast */
    bool tower_full;  /* tower weights train (vision_training full, full LM fine-tuning) */
    bool tower_lora;  /* LoRA adapters on the tower's Linears */
    bool tower_grad;  /* tower activations require grad (full or LoRA) */
    bool proj_train;  /* projector weights train */
    bool proj_grad;   /* projector activations require grad */
    uint64_t ab;      /* LoRA adapter bytes (peft keeps fp32 adapters) */
    uint64_t rank;
    double lora_dropout;
    int attention;    /* enum llmmem__attn */
    const char *targets;
} vrun;

/* Image geometry of one sample. */
typedef struct vgeom {
    uint64_t units;     /* encoder passes (images, frame groups) per sample */
    uint64_t tower_tok; /* tower tokens of one unit (CLIP: patches + CLS) */
    uint64_t chunk;     /* attention sequence length (tokens attending together) */
    uint64_t lm_tok;    /* LM tokens of one unit */
    uint64_t pixels;    /* pixel values of one unit (the patch embedding's input) */
} vgeom;

static bool target(const vrun *r, const char *name)
{
    llmmem__tensor x = {name, LLMMEM__T_ATTN, 1, 1, 1, true, true, 0, NULL};
    return r->tower_lora && llmmem__lora_targets(r->targets, &x);
}

/* What `nlin` Linears reading a w-wide tensor of in_b bytes keep, `nlora` of
 * them with an adapter; `shared` says the tensor is already kept by another op.
 * Mirrors saved.c saved_readers: a trainable Linear saves its input (its own
 * cast under autocast); peft LoRA casts the input to the adapter dtype per
 * module (peft/tuners/lora/layer.py) and lora_B keeps lora_A's output. */
static uint64_t linears(const vrun *r, uint64_t in_b, uint64_t w, uint64_t nlin, uint64_t nlora,
                        bool shared, llmmem__ovf *o)
{
    uint64_t s = 0;
    if (r->tower_full && nlin > 0)
        s = r->amp && in_b != r->cb ? llmmem__mul3(o, nlin, r->cb, w) : (shared ? 0 : llmmem__mul(o, in_b, w));
    if (nlora > 0) {
        if (r->amp)
            s = llmmem__add(o, s, llmmem__mul3(o, nlora, r->cb, w + r->rank));
        else
            s = llmmem__add(o, s, llmmem__mul(o, nlora, (in_b != r->ab ? r->ab * w : 0) + r->ab * r->rank));
        if (r->lora_dropout > 0)
            s = llmmem__add(o, s, llmmem__mul3(o, nlora, r->ab + 1, w)); /* dropped copy + mask */
        if (!r->amp && in_b == r->ab && !shared && !r->tower_full)
            s = llmmem__add(o, s, llmmem__mul(o, in_b, w)); /* the input itself */
    }
    return s;
}

/* nn.LayerNorm (torch native_layer_norm): keeps its input (fp32 under
 * autocast) plus mean and rstd (8 B per row) when the input or weight needs
 * a gradient. *out_b: the output dtype. */
static uint64_t layernorm(const vrun *r, uint64_t w, uint64_t *out_b)
{
    *out_b = r->amp ? 4 : r->rb;
    return *out_b * w + 8;
}

/* The attention core per tower token of a layer; *out_shared says whether
 * the output projection reads a tensor the core keeps. `n` is the attention
 * sequence length (eager scores). */
static uint64_t attention_tok(const struct llmmem__vision_tower *t, const vrun *r, uint64_t n, bool *out_shared)
{
    const uint64_t h = (uint64_t)t->hidden, a = (uint64_t)t->heads, cb = r->cb;
    if (r->attention == LLMMEM__ATTN_EAGER) {
        /* eager_attention_forward: matmul(q, k^T) keeps q and k (bmm copies of
         * the transposed views), softmax(dtype=float32) keeps its output, the
         * .to(q.dtype) copy and v are kept by matmul(weights, v); dropout p=0
         * is the identity. The transposed output is copied for out_proj. */
        *out_shared = false;
        return 3 * cb * h + (4 + cb) * a * n;
    }
    if (LLMMEM__VISION_QWEN(t)) {
        /* v is a view of the fused qkv output, so the whole 3h buffer stays;
         * the rotated q and k are new tensors (apply_rotary_pos_emb_vision
         * computes in fp32 and casts back); SDPA/flash keep out + fp32 lse.
         * sdpa: torch.cat of the per-chunk outputs is a new tensor for proj;
         * flash_attention_2: one varlen call, reshape is a view. */
        *out_shared = r->attention == LLMMEM__ATTN_FLASH;
        return 3 * cb * h + 2 * cb * h + cb * h + 4 * a;
    }
    /* SDPA / flash (Dao et al. 2022 §3.1): q, k, v, out and the fp32
     * log-sum-exp; q from its own Linear is laid out [b, n, a, d], so
     * transpose(1, 2).contiguous() is free and out_proj reads out. */
    *out_shared = true;
    return 4 * cb * h + 4 * a;
}

/* Saved bytes per tower token of one encoder layer whose activations require
 * grad. `n` is the attention sequence length (eager scores).
 * - CLIPEncoderLayer (modeling_clip.py) / SiglipEncoderLayer (modeling_siglip.py):
 *   layer_norm1 -> q_proj, k_proj, v_proj -> attention -> out_proj -> + ->
 *   layer_norm2 -> fc1 -> act -> fc2 -> +.
 * - Qwen2VLVisionBlock (modeling_qwen2_vl.py): norm1 -> fused qkv -> fp32
 *   rotary -> attention per cu_seqlens chunk (flash: one varlen call; others:
 *   torch.split and torch.cat) -> proj; norm2 -> fc1 -> QuickGELU -> fc2. */
static uint64_t layer_tok(const struct llmmem__vision_tower *t, const vrun *r, uint64_t n, llmmem__ovf *o)
{
    const uint64_t h = (uint64_t)t->hidden, f = (uint64_t)t->intermediate;
    const uint64_t cb = r->cb;
    const bool qwen = LLMMEM__VISION_QWEN(t);
    uint64_t s = 0, nb;

    /* norm1 and the q/k/v projections */
    s += layernorm(r, h, &nb);
    if (qwen)
        s += linears(r, nb, h, 1, target(r, "qkv"), false, o);
    else
        s += linears(r, nb, h, 3, (uint64_t)target(r, "q_proj") + target(r, "k_proj") + target(r, "v_proj"),
                     false, o);

    /* attention core */
    bool out_shared; /* the output projection reads a tensor the core keeps */
    s += attention_tok(t, r, n, &out_shared);
    s += linears(r, cb, h, 1, target(r, qwen ? "proj" : "out_proj"), out_shared, o);

    /* norm2 and the MLP */
    s += layernorm(r, h, &nb);
    s += linears(r, nb, h, 1, target(r, "fc1"), false, o);
    if (t->kind == LLMMEM__V_SIGLIP)
        s += cb * f; /* gelu_pytorch_tanh: fused F.gelu(approximate="tanh") keeps its input */
    else
        s += 2 * cb * f; /* QuickGELU x * sigmoid(1.702 x): keeps x and the sigmoid output */
    s += linears(r, cb, f, 1, target(r, "fc2"), false, o);
    return s;
}

/* Python's round() (half to even) of a / b for non-negative integers. */
static uint64_t round_half_even(uint64_t a, uint64_t b)
{
    uint64_t q = a / b, rem = a % b;
    if (2 * rem > b || (2 * rem == b && (q & 1)))
        q++;
    return q;
}

/* smart_resize of Qwen2VLImageProcessor (image_processing_qwen2_vl.py):
 * both sides multiples of factor = patch_size * merge_size, pixels within
 * [min_pixels, max_pixels], aspect ratio kept. Same float operations. */
static int smart_resize(uint64_t *oh, uint64_t *ow, uint64_t H, uint64_t W, uint64_t factor, uint64_t min_px,
                        uint64_t max_px)
{
    uint64_t lo = H < W ? H : W, hi = H < W ? W : H;
    if ((double)hi / (double)lo > 200)
        return llmmem__error(LLMMEM_E_OUT_OF_RANGE,
                             "image_height %llu x image_width %llu: absolute aspect ratio must be at most 200 "
                             "(smart_resize, image_processing_qwen2_vl.py)",
                             (unsigned long long)H, (unsigned long long)W);
    uint64_t hb = round_half_even(H, factor) * factor, wb = round_half_even(W, factor) * factor;
    if (hb * wb > max_px) {
        double beta = sqrt((double)(H * W) / (double)max_px);
        hb = (uint64_t)floor((double)H / beta / (double)factor) * factor;
        wb = (uint64_t)floor((double)W / beta / (double)factor) * factor;
        hb = hb > factor ? hb : factor;
        wb = wb > factor ? wb : factor;
    } else if (hb * wb < min_px) {
        double beta = sqrt((double)min_px / (double)(H * W));
        hb = (uint64_t)ceil((double)H * beta / (double)factor) * factor;
        wb = (uint64_t)ceil((double)W * beta / (double)factor) * factor;
    }
    *oh = hb;
    *ow = wb;
    return 0;
}

/* CLIPImageProcessor (llava: resize shortest edge 336 + center crop) and
 * SiglipImageProcessor / Gemma3ImageProcessor (resize to 896x896) give every
 * image the fixed size, so image_height/width do not change the tokens. Video
 * frames are encoded as images. */
static void geometry_fixed(vgeom *g, const struct llmmem__vision_tower *t, const struct llmmem_config *c)
{
    const uint64_t side = (uint64_t)t->image_size / (uint64_t)t->patch_size;
    g->units = (uint64_t)c->images_per_sample + (uint64_t)c->video_frames;
    g->tower_tok = side * side + (t->kind == LLMMEM__V_CLIP ? 1 : 0); /* CLIP class embedding */
    g->chunk = g->tower_tok;
    g->lm_tok = (uint64_t)t->tokens_per_image;
    g->pixels = 3 * (uint64_t)t->image_size * (uint64_t)t->image_size;
}

/* Qwen2-VL dynamic resolution (image_processing_qwen2_vl.py): defaults
 * min_pixels 56*56, max_pixels 28*28*1280, or the checkpoint processor's
 * bounds where the model knows them (Qwen3.5). */
static int geometry_qwen2vl(vgeom *g, vgeom *video, const struct llmmem__vision_tower *t,
                            const struct llmmem_config *c, llmmem__ovf *o)
{
    const uint64_t p = (uint64_t)t->patch_size;
    const uint64_t factor = p * (uint64_t)t->merge_size;
    const uint64_t min_px = c->min_pixels > 0   ? (uint64_t)c->min_pixels
                            : t->min_pixels > 0 ? (uint64_t)t->min_pixels
                                                : 56 * 56;
    const uint64_t max_px = c->max_pixels > 0   ? (uint64_t)c->max_pixels
                            : t->max_pixels > 0 ? (uint64_t)t->max_pixels
                                                : 28 * 28 * 1280;
    if (min_px > max_px)
        return llmmem__error(LLMMEM_E_INCONSISTENT, "min_pixels %llu is larger than max_pixels %llu",
                             (unsigned long long)min_px, (unsigned long long)max_px);
    uint64_t H = (uint64_t)c->image_height, W = (uint64_t)c->image_width;
    if (H == 0) {
        /* no size given: the largest image the processor produces, a square of max_pixels */
        H = W = (uint64_t)floor(sqrt((double)max_px));
        if (H == 0)
            H = W = 1;
    }
    uint64_t hb = 0, wb = 0;
    int rc = smart_resize(&hb, &wb, H, W, factor, min_px, max_px);
    if (rc)
        return rc;
    const uint64_t gh = hb / p, gw = wb / p, tp = (uint64_t)t->temporal_patch;
    const uint64_t mm = (uint64_t)(t->merge_size * t->merge_size);
    /* an image is repeated to temporal_patch_size frames: grid_t = 1 */
    g->units = (uint64_t)c->images_per_sample;
    g->tower_tok = llmmem__mul(o, gh, gw);
    g->chunk = g->tower_tok; /* cu_seqlens: one chunk per grid_t slice */
    g->lm_tok = g->tower_tok / mm;
    g->pixels = llmmem__mul3(o, llmmem__mul(o, gh, gw), 3 * tp, llmmem__mul(o, p, p));
    if (c->video_frames > 0) {
        /* one video per sample; frames grouped by temporal_patch_size (the last
         * frame repeated to fill a group): grid_t = ceil(frames / tp) */
        *video = *g;
        video->units = llmmem__ceil_div((uint64_t)c->video_frames, tp);
    }
    return 0;
}

/* Image geometry per unit and the number of units per sample. */
static int geometry(vgeom *g, vgeom *video, const struct llmmem_model *m, const struct llmmem_config *c,
                    llmmem__ovf *o)
{
    const struct llmmem__vision_tower *t = &m->vision;
    memset(g, 0, sizeof *g);
    memset(video, 0, sizeof *video);
    if ((c->image_height == 0) != (c->image_width == 0))
        return llmmem__error(LLMMEM_E_INCONSISTENT,
                             "image_height %lld and image_width %lld: set both, or neither (0 = the "
                             "processor's size)",
                             (long long)c->image_height, (long long)c->image_width);
    if (t->kind == LLMMEM__V_CLIP || t->kind == LLMMEM__V_SIGLIP) {
        geometry_fixed(g, t, c);
        return 0;
    }
    return geometry_qwen2vl(g, video, t, c, o);
}

/* LoRA adapter parameters on the tower's Linears (rank * (in + out) each). */
static uint64_t tower_adapters(const struct llmmem__vision_tower *t, const vrun *r, llmmem__ovf *o)
{
    const uint64_t h = (uint64_t)t->hidden, f = (uint64_t)t->intermediate;
    uint64_t per = 0;
    if (LLMMEM__VISION_QWEN(t)) {
        per += target(r, "qkv") ? h + 3 * h : 0;
        per += target(r, "proj") ? 2 * h : 0;
    } else {
        static const char *const qkvo[] = {"q_proj", "k_proj", "v_proj", "out_proj"};
        for (size_t i = 0; i < LLMMEM_ARRAY_LEN(qkvo); i++)
            per += target(r, qkvo[i]) ? 2 * h : 0;
    }
    per += target(r, "fc1") ? h + f : 0;
    per += target(r, "fc2") ? f + h : 0;
    return llmmem__mul3(o, per, r->rank, (uint64_t)t->layers);
}

/* Projector bytes kept per sample (units of geometry g). */
static uint64_t projector_saved(const struct llmmem_model *m, const vrun *r, const vgeom *g, llmmem__ovf *o)
{
    const struct llmmem__vision_tower *t = &m->vision;
    const uint64_t hv = (uint64_t)t->hidden, H = (uint64_t)m->hidden_size, cb = r->cb;
    const uint64_t tower = llmmem__mul(o, g->units, g->tower_tok), lm = llmmem__mul(o, g->units, g->lm_tok);
    uint64_t s = 0;
    switch (t->kind) {
    case LLMMEM__V_CLIP:
        /* LlavaMultiModalProjector (modeling_llava.py): linear_1 keeps the
         * selected features, a [:, 1:] view that holds the whole layer output
         * (its own cast under autocast); GELU (F.gelu) keeps its input and
         * linear_2 the GELU output. */
        if (r->proj_train)
            s += r->amp ? llmmem__mul3(o, lm, hv, cb) : llmmem__mul3(o, tower, hv, r->rb);
        s += llmmem__mul3(o, lm, H, cb);
        if (r->proj_train)
            s += llmmem__mul3(o, lm, H, cb);
        break;
    case LLMMEM__V_QWEN2VL:
    case LLMMEM__V_QWEN3VL: {
        /* Qwen2VL PatchMerger: ln_q (LayerNorm over embed_dim), view to
         * merge^2 * embed_dim, Linear, nn.GELU (keeps its input), Linear. */
        uint64_t nb;
        s += llmmem__mul(o, tower, layernorm(r, hv, &nb));
        if (r->proj_train)
            s += llmmem__mul3(o, tower, hv, r->amp ? cb : nb);
        s += llmmem__mul3(o, tower, hv, cb);
        if (r->proj_train)
            s += llmmem__mul3(o, tower, hv, cb);
        break;
    }
    case LLMMEM__V_SIGLIP:
        /* Gemma3MultiModalProjector (modeling_gemma3.py): transpose + reshape
         * + contiguous copy kept by avg_pool2d when the tower's output needs
         * a gradient; Gemma3RMSNorm in fp32 (x and rsqrt for the input
         * gradient, the normed tensor for the weight); matmul with
         * mm_input_projection_weight keeps the normed input. */
        if (r->tower_grad) {
            s += llmmem__mul3(o, tower, hv, cb);
            s += llmmem__mul(o, lm, 4 * hv + 4);
        }
        if (r->proj_train) {
            s += llmmem__mul(o, lm, 4 * hv);
            s += llmmem__mul3(o, lm, hv, cb);
        }
        break;
    }
    return s;
}

/* Tower bytes kept per sample (units of geometry g) and the forward working
 * set of the whole micro-batch. */
static uint64_t tower_saved(const struct llmmem_model *m, const struct llmmem_config *c, const vrun *r,
                            const vgeom *g, llmmem__ovf *o)
{
    const struct llmmem__vision_tower *t = &m->vision;
    if (!r->tower_grad || g->units == 0)
        return 0;
    const uint64_t h = (uint64_t)t->hidden;
    const uint64_t tok = llmmem__mul(o, g->units, g->tower_tok);
    const uint64_t run = (uint64_t)t->feature_layer; /* layers whose output reaches the projector */
    uint64_t s;
    if (c->checkpointing == LLMMEM__CKPT_FULL) {
        /* gradient_checkpointing_enable() reaches the vision encoder too
         * (CLIPEncoder, SiglipEncoder, Qwen2VisionTransformer): each layer
         * keeps its input (torch/utils/checkpoint.py). */
        s = llmmem__mul3(o, run, tok, llmmem__mul(o, h, r->rb));
    } else {
        s = llmmem__mul3(o, run, tok, layer_tok(t, r, g->chunk, o));
    }
    uint64_t nb;
    if (r->tower_full) /* the patch embedding keeps the pixel values (model dtype) */
        s = llmmem__add(o, s, llmmem__mul3(o, g->units, g->pixels, r->cb));
    if (t->kind == LLMMEM__V_CLIP && r->tower_full) /* pre_layrnorm */
        s = llmmem__add(o, s, llmmem__mul(o, tok, layernorm(r, h, &nb)));
    if (t->kind == LLMMEM__V_SIGLIP) /* post_layernorm on last_hidden_state */
        s = llmmem__add(o, s, llmmem__mul(o, tok, layernorm(r, h, &nb)));
    if (LLMMEM__VISION_QWEN(t)) /* rotary cos and sin (fp32, head_dim wide), shared by all blocks */
        s = llmmem__add(o, s, llmmem__mul3(o, tok, 8, h / (uint64_t)t->heads));
    return s;
}

/* The encoder's largest forward working set beyond what it keeps, for a
 * micro-batch of `batch` samples. */
static uint64_t tower_transient(const struct llmmem_model *m, const vrun *r, const vgeom *g, uint64_t batch,
                                llmmem__ovf *o)
{
    const struct llmmem__vision_tower *t = &m->vision;
    if (g->units == 0)
        return 0;
    const uint64_t h = (uint64_t)t->hidden, f = (uint64_t)t->intermediate, a = (uint64_t)t->heads;
    const uint64_t cb = r->cb;
    const uint64_t units = llmmem__mul(o, batch, g->units);
    const uint64_t tok = llmmem__mul(o, units, g->tower_tok);
    const bool grad = r->tower_grad;
    /* MLP: QuickGELU x * sigmoid(1.702 x) holds x, 1.702x and the sigmoid
     * (the product replaces 1.702x); fused gelu holds input and output. With
     * grad, all but the 1.702x temporary are kept anyway. */
    uint64_t mlp = t->kind == LLMMEM__V_SIGLIP ? (grad ? 0 : 2 * cb * f) : (grad ? cb * f : 3 * cb * f);
    uint64_t ws = llmmem__mul(o, tok, mlp);
    /* Attention. */
    uint64_t attn;
    if (r->attention == LLMMEM__ATTN_EAGER) {
        /* scaled scores (compute dtype) while softmax writes fp32; with grad the
         * fp32 output is kept. CLIP/SigLIP batch all images; Qwen2-VL runs one
         * cu_seqlens chunk at a time. */
        uint64_t per = grad ? cb : cb + 4;
        uint64_t seqs = LLMMEM__VISION_QWEN(t) ? 1 : units;
        attn = llmmem__mul3(o, seqs, llmmem__mul(o, a, per), llmmem__mul(o, g->chunk, g->chunk));
    } else if (LLMMEM__VISION_QWEN(t)) {
        /* apply_rotary_pos_emb_vision: fp32 q and k, q*cos, rotate_half(q),
         * rotate_half(q)*sin and their sum: six fp32 h-wide tensors. */
        attn = llmmem__mul3(o, tok, 24, h);
    } else {
        attn = grad ? 0 : llmmem__mul3(o, tok, 4 * cb, h); /* q, k, v, out */
    }
    ws = llmmem__max(ws, attn);
    if (t->kind == LLMMEM__V_CLIP && !grad) {
        /* output_hidden_states=True (modeling_llava.py get_image_features): the
         * tuple holds every layer's output until the features are selected. */
        ws = llmmem__add(o, ws, llmmem__mul3(o, tok, (uint64_t)t->layers + 1, llmmem__mul(o, h, r->rb)));
    }
    return ws;
}

/* Who trains (docs/vision.md): full LM fine-tuning trains the projector, and
 * the tower when vision_training is full; a LoRA run trains adapters on the
 * tower's Linears when vision_training is lora, nothing else of the vision
 * side. Inference keeps nothing. Dtypes as in the language model (recipe.c). */
static void vrun_of(vrun *r, const struct llmmem_model *m, const struct llmmem_config *c)
{
    llmmem__recipe rc;
    llmmem__recipe_of(&rc, m, c);
    memset(r, 0, sizeof *r);
    r->cb = rc.cb;
    r->amp = rc.amp;
    r->rb = rc.rb;
    r->attention = (int)c->attention;
    r->targets = c->lora_targets;
    const bool training = c->mode == LLMMEM__MODE_TRAINING;
    if (training && !rc.lora) {
        r->proj_train = true;
        r->tower_full = c->vision_training == LLMMEM__VT_FULL;
    }
    if (training && rc.lora && c->vision_training == LLMMEM__VT_LORA) {
        r->tower_lora = true;
        r->ab = rc.ab;
        r->rank = (uint64_t)c->lora_rank;
        r->lora_dropout = c->lora_dropout;
    }
    r->tower_grad = r->tower_full || r->tower_lora;
    r->proj_grad = r->proj_train || r->tower_grad;
}

/* Whether the model describes its tower well enough to size it. */
static bool tower_complete(const struct llmmem__vision_tower *t)
{
    return t->hidden > 0 && t->layers > 0 && t->heads > 0 && t->intermediate > 0 && t->patch_size > 0 &&
           (LLMMEM__VISION_QWEN(t) || (t->image_size >= t->patch_size && t->tokens_per_image > 0)) &&
           (!LLMMEM__VISION_QWEN(t) || (t->merge_size > 0 && t->temporal_patch > 0));
}

int llmmem__vision_compute(llmmem__vision_bytes *out, const struct llmmem_model *m,
                           const struct llmmem_config *c, uint64_t batch, uint64_t seq, llmmem__ovf *o)
{
    memset(out, 0, sizeof *out);
    const struct llmmem__vision_tower *t = &m->vision;
    if (t->kind == LLMMEM__V_NONE || (c->images_per_sample == 0 && c->video_frames == 0))
        return LLMMEM_OK;
    if (!tower_complete(t))
        return llmmem__error(LLMMEM_E_INCONSISTENT, "model %s: vision tower description incomplete",
                             m->model_type);

    vgeom g, vid;
    int rc = geometry(&g, &vid, m, c, o);
    if (rc)
        return rc;
    out->lm_tokens = llmmem__add(o, llmmem__mul(o, g.units, g.lm_tok), llmmem__mul(o, vid.units, vid.lm_tok));
    out->patches = llmmem__add(o, llmmem__mul(o, g.units, g.tower_tok),
                               llmmem__mul(o, vid.units, vid.tower_tok));

    vrun r;
    vrun_of(&r, m, c);
    const int64_t tower_params = m->vision_params - t->projector_params;
    if (r.proj_train)
        out->trainable = t->projector_params + (r.tower_full ? tower_params : 0);
    else if (r.tower_lora)
        out->trainable = (int64_t)tower_adapters(t, &r, o);

    /* Saved tensors per micro-batch: tower layers, embeddings, projector and
     * the image mask that masked_scatter keeps (modeling_llava.py,
     * modeling_qwen2_vl.py, modeling_gemma3.py: one byte per LM position). */
    if (r.proj_grad) {
        uint64_t per = llmmem__add(o, tower_saved(m, c, &r, &g, o), tower_saved(m, c, &r, &vid, o));
        per = llmmem__add(o, per, llmmem__add(o, projector_saved(m, &r, &g, o), projector_saved(m, &r, &vid, o)));
        per = llmmem__add(o, per, seq + out->lm_tokens);
        out->saved = llmmem__mul(o, per, batch);
    }
    out->transient = llmmem__max(tower_transient(m, &r, &g, batch, o), tower_transient(m, &r, &vid, batch, o));
    /* Under full checkpointing a tower layer is recomputed in backward: its
     * saved tensors are live again for one layer at a time. */
    if (r.tower_grad && c->checkpointing == LLMMEM__CKPT_FULL) {
        uint64_t one = llmmem__mul3(o, batch, llmmem__mul(o, g.units, g.tower_tok), layer_tok(t, &r, g.chunk, o));
        out->transient = llmmem__max(out->transient, one);
    }
    return LLMMEM_OK;
}
