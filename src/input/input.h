/* Input: JSON documents (the only layer that sees cJSON), HF config.json,
 * scenarios and framework files. Not installed. */
#ifndef LLMMEM_INPUT_INPUT_H
#define LLMMEM_INPUT_INPUT_H

#include "config/config.h"
#include "model/model.h"

typedef struct llmmem__json llmmem__json;     /* a parsed document with positions */
typedef struct cJSON llmmem__jnode;           /* a node in it */

enum llmmem__jtype { LLMMEM__J_NULL = 0, LLMMEM__J_BOOL, LLMMEM__J_NUMBER, LLMMEM__J_STRING,
                     LLMMEM__J_ARRAY, LLMMEM__J_OBJECT, LLMMEM__J_INVALID };

/* Parses text; `source` names it in errors ("config.json"). LLMMEM_E_PARSE with
 * "source:line:col: ..." on bad JSON. The document points into `text` and
 * `source`, which must outlive it. */
int llmmem__json_parse(llmmem__json **out, const char *text, size_t len, const char *source);
void llmmem__json_free(llmmem__json *doc);
const llmmem__jnode *llmmem__json_root(const llmmem__json *doc);
const char *llmmem__json_source(const llmmem__json *doc);
int llmmem__json_type(const llmmem__jnode *n);
/* Case-sensitive member lookup; NULL if absent or n is not an object. */
const llmmem__jnode *llmmem__json_get(const llmmem__jnode *obj, const char *key);
/* The same for a name of n bytes (not NUL-terminated). */
const llmmem__jnode *llmmem__json_getn(const llmmem__jnode *obj, const char *key, size_t n);
/* Iteration over object members and array items. */
const llmmem__jnode *llmmem__json_first(const llmmem__jnode *n);
const llmmem__jnode *llmmem__json_next(const llmmem__jnode *n);
const char *llmmem__json_key(const llmmem__jnode *n); /* member name */
double llmmem__json_number(const llmmem__jnode *n);
const char *llmmem__json_string(const llmmem__jnode *n);
bool llmmem__json_true(const llmmem__jnode *n);
int llmmem__json_array_size(const llmmem__jnode *n);
/* 1-based line and column of a node's value in the source text. */
void llmmem__json_pos(const llmmem__json *doc, const llmmem__jnode *n, int *line, int *col);
/* Typed readers (key NULL: obj itself is the value) that fail with "source:line:col: key: expected ..." (LLMMEM_E_SCHEMA)
 * or LLMMEM_E_OUT_OF_RANGE. `path` is the key path for the message ("model.hidden_size").
 * A JSON null or an absent key leaves *out unchanged and returns 0 when !required. */
int llmmem__json_read_i64(int64_t *out, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, int64_t lo, int64_t hi, bool required);
int llmmem__json_read_f64(double *out, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, double lo, double hi, bool required);
int llmmem__json_read_bool(bool *out, const llmmem__json *doc, const llmmem__jnode *obj,
                           const char *key, const char *path, bool required);
/* Copies a string member into buf (truncation is an error). */
int llmmem__json_read_str(char *buf, size_t cap, const llmmem__json *doc, const llmmem__jnode *obj,
                          const char *key, const char *path, bool required);
/* Reports an error at a node: "source:line:col: path: message". */
int llmmem__json_error_at(const llmmem__json *doc, const llmmem__jnode *n, int status,
                          const char *path, const char *fmt, ...) LLMMEM_PRINTF(5, 6);
/* The Hugging Face Hub ids of the presets (presets.c): the i-th id and its preset, NULL
 * past the end; the preset a Hub id is (any case), NULL when none. */
int llmmem__hub_id_count(void);
const char *llmmem__hub_id_at(int index, const char **preset);
const char *llmmem__preset_of_hub_id(const char *id);
/* A model named as transformers' from_pretrained names it, resolved offline (hub.c,
 * llmmem_model_from_pretrained); hub_cache may be NULL; `local`: a path to a config.json
 * or a folder holding one is taken too (not in scenarios, whose files are hf_config). */
int llmmem__model_resolve(struct llmmem_model **out, const char *name, const char *hub_cache, bool local);
/* Reads a whole file into a NUL-terminated malloc'd buffer (LLMMEM_E_IO names the path). */
int llmmem__read_file(char **out, size_t *len, const char *path);

/* Type tests on a node (false for NULL). */
static inline bool llmmem__json_is_string(const llmmem__jnode *n)
{
    return llmmem__json_type(n) == LLMMEM__J_STRING;
}
static inline bool llmmem__json_is_number(const llmmem__jnode *n)
{
    return llmmem__json_type(n) == LLMMEM__J_NUMBER;
}
static inline bool llmmem__json_is_bool(const llmmem__jnode *n)
{
    return llmmem__json_type(n) == LLMMEM__J_BOOL;
}
static inline bool llmmem__json_is_object(const llmmem__jnode *n)
{
    return llmmem__json_type(n) == LLMMEM__J_OBJECT;
}
static inline bool llmmem__json_is_null(const llmmem__jnode *n)
{
    return llmmem__json_type(n) == LLMMEM__J_NULL;
}

/* ---- JSON values onto parameters (values.c), shared by the scenario,
 * DeepSpeed and TrainingArguments readers. Every error names the key path,
 * the value and source:line:col. */
#define LLMMEM__KEYPATH_MAX 256 /* a key path in messages ("zero_optimization.stage") */
/* out = "a.b", or "b" when a is empty. */
void llmmem__input_join_path(char *out, size_t cap, const char *a, const char *b);
/* Re-reports the thread's error (set by a public setter) at a node:
 * "source:line:col: path: <inner message>". */
int llmmem__input_wrap(const llmmem__json *doc, const llmmem__jnode *n, const char *path,
                       int status);
/* Short text of a JSON value for messages ("\"abc\"", "an object", 1.5). */
const char *llmmem__input_value_text(char *buf, size_t cap, const llmmem__jnode *n);
/* LLMMEM_E_SCHEMA "expected <expected>, got <value>". */
int llmmem__input_type_error(const llmmem__json *doc, const llmmem__jnode *n, const char *path,
                             const char *expected);
/* A JSON number that is an exact integer within +-2^53. */
int llmmem__input_node_i64(int64_t *out, const llmmem__json *doc, const llmmem__jnode *n,
                           const char *path);
/* Lower-case copy with '-' as '_' ("Zero-3" -> "zero_3"). */
void llmmem__input_lower_copy(char *out, size_t cap, const char *s);
/* Sets parameter `id` from a JSON value, by the parameter's type. */
int llmmem__input_set_param(const llmmem__json *doc, llmmem_config *cfg, int id,
                            const llmmem__jnode *n, const char *path);
/* llmmem_config_set_str/_i64 with a failure reported at node n. */
int llmmem__input_set_str(const llmmem__json *doc, llmmem_config *cfg, int id, const char *value,
                          const llmmem__jnode *n, const char *path);
int llmmem__input_set_i64(const llmmem__json *doc, llmmem_config *cfg, int id, int64_t value,
                          const llmmem__jnode *n, const char *path);
/* optimizer (+ optimizer_impl) from a scenario or framework optimizer name. */
int llmmem__input_set_optimizer(const llmmem__json *doc, llmmem_config *cfg,
                                const llmmem__jnode *n, const char *path);
/* activation_checkpointing from a name, a bool or a level 0..4. */
int llmmem__input_set_checkpointing(const llmmem__json *doc, llmmem_config *cfg,
                                    const llmmem__jnode *n, const char *path);
/* An offload parameter from a name, a bool, null or {"device": ...}. */
int llmmem__input_set_offload(const llmmem__json *doc, llmmem_config *cfg, int id,
                              const llmmem__jnode *n, const char *path);
/* One key of a scenario's "vllm" section: vLLM's own argument name
 * (gpu_memory_utilization, max_model_len, tensor_parallel_size, kv_cache_dtype,
 * enforce_eager, quantization, block_size, enable_chunked_prefill, ...) onto the
 * parameters; arguments without effect on GPU memory are accepted, those that
 * change it in a way not modelled are LLMMEM_E_UNSUPPORTED. */
int llmmem__input_set_vllm_arg(const llmmem__json *doc, llmmem_config *cfg, const char *key,
                               const llmmem__jnode *n, const char *path);
/* lora_targets from a list of module names or one string. */
int llmmem__input_set_targets(const llmmem__json *doc, llmmem_config *cfg,
                              const llmmem__jnode *n, const char *path);
/* Parses json (named `source` in errors) and applies it to a copy of cfg with
 * apply(doc, root, copy, arg); cfg takes the copy only when all of it applied. */
typedef int (*llmmem__input_apply_fn)(const llmmem__json *doc, const llmmem__jnode *root,
                                      llmmem_config *cfg, const void *arg);
int llmmem__input_apply_copy(llmmem_config *cfg, const char *json, size_t len, const char *source,
                             llmmem__input_apply_fn apply, const void *arg);

/* A DeepSpeed ds_config object applied to cfg (deepspeed.c); `model` (may be
 * NULL) resolves the "auto" bucket sizes. Also the inline "deepspeed" of
 * TrainingArguments. */
int llmmem__deepspeed_apply(const llmmem__json *doc, const llmmem__jnode *root,
                            llmmem_config *cfg, const llmmem_model *model);

/* HF config.json -> model fields (hfconfig.c). */
int llmmem__model_from_json_doc(struct llmmem_model *m, const llmmem__json *doc,
                                const llmmem__jnode *root);

/* The vision towers of a multimodal wrapper (towers.c): llava, qwen2_vl;
 * 0 for any other type. */
int llmmem__hf_towers(struct llmmem_model *m, const char *type, const llmmem__json *doc,
                      const llmmem__jnode *root);
/* The vision geometry of a counted composite whose tower the vision
 * estimator models (gemma3's SigLIP), from its registry quantities (towers.c). */
int llmmem__hf_vision_geometry(struct llmmem_model *m);
/* A registry family's quantities from a config object (quantities.c); prefix
 * names the object in messages ("" or "text_config."). */
int llmmem__read_quantities(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                            const char *prefix);
/* The same into any quantity table (a tower's, a composite's); `what` names
 * the model in messages. */
int llmmem__read_qvals(llmmem__qvals *q, const llmmem__qdef *defs, int n, const char *what,
                       const llmmem__json *doc, const llmmem__jnode *obj, const char *prefix);
/* The node (and key path) a quantity was read from; NULL when defaulted. */
const llmmem__jnode *llmmem__quantity_node(const struct llmmem_model *m, const char *sym,
                                           const llmmem__jnode *obj, char *path, size_t cap, const char *prefix);
/* Contradictions between quantities (top-k above the experts, heads not a
 * multiple of the KV heads), reported at the key's position. */
int llmmem__check_quantities(const struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix);
/* The per-layer lists of the entry (layer_types, a hybrid pattern string, the
 * dense-layer indices of FR_STEP), after llmmem__registry_prepare. */
int llmmem__read_layer_lists(struct llmmem_model *m, const llmmem__json *doc, const llmmem__jnode *obj,
                             const char *prefix);

/* ---- YAML (yaml.c, the only file that includes libyaml) --------------------
 * A YAML document is read into a tree of these nodes, then built into an
 * llmmem__json document (json.c llmmem__json_from_yaml) so that every reader
 * and every error ("source:line:col: key.path: ...") works on it as on JSON. */
enum llmmem__ykind { LLMMEM__Y_SCALAR = 0, LLMMEM__Y_MAP, LLMMEM__Y_SEQ };
typedef struct llmmem__ynode {
    int kind;                     /* enum llmmem__ykind */
    bool plain;                   /* a plain (unquoted) scalar: typed by its text */
    const char *text;             /* a scalar's value (NUL-terminated) */
    const char *key;              /* the key of a map member, NULL otherwise */
    size_t off, len;              /* the value's bytes in the source */
    int line, col;                /* 1-based position of the value */
    int kline, kcol;              /* ... and of its key in a mapping */
    struct llmmem__ynode *child;  /* map members / sequence items, in order */
    struct llmmem__ynode *next;
} llmmem__ynode;
/* Builds a JSON document from a YAML tree (json.c): plain scalars become null
 * (~, null, empty), booleans (true/false/yes/no/on/off in any case), numbers
 * or strings; positions come from the tree. The document points into `text`
 * and `source`, which must outlive it. */
int llmmem__json_from_yaml(llmmem__json **out, const llmmem__ynode *root, const char *text, size_t len,
                           const char *source);
/* Parses YAML text (one document; duplicate keys, aliases and tags other
 * than the core schema's refused) into a JSON document (yaml.c). */
int llmmem__yaml_parse(llmmem__json **out, const char *text, size_t len, const char *source);

/* llmmem__input_apply_copy on a file's text (llmmem__read_file); fn names the caller. */
int llmmem__input_apply_file(llmmem_config *cfg, const char *path, const char *fn, llmmem__input_apply_fn apply,
                             const void *arg);
/* An error when the object has none of `keys` (NULL-terminated, at least two),
 * saying which kind of file it looks like. */
int llmmem__input_expect_keys(const llmmem__json *doc, const llmmem__jnode *root, const char *const *keys,
                              const char *reader);

#endif /* LLMMEM_INPUT_INPUT_H */
