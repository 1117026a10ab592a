/* Shared pieces of the framework-file readers (fwkeys.c): a reader walks a
 * document's keys and, for each, sets parameters, refuses what the library
 * does not model (an error at the key, naming file, key path and line:col),
 * notes what it reads with an assumption, and collects the keys it does not
 * know into one note. Not installed. */
#ifndef LLMMEM_INPUT_FRAMEWORK_H
#define LLMMEM_INPUT_FRAMEWORK_H

#include "input/input.h"

typedef struct fw_ctx {
    const llmmem__json *doc;
    llmmem_config *cfg;
    const char *reader;             /* "torchtune recipe", in notes */
    char unread[LLMMEM__NOTE_MAX];  /* keys not known, for one note */
    int unread_n;
    int read_n;                     /* top-level keys the reader reads (none: not its file) */
} fw_ctx;

/* A reader of one kind of file: fills cfg from the document's root object. */
typedef int (*fw_reader)(fw_ctx *x, const llmmem__jnode *root);

/* A key that is present and not null, else NULL. */
const llmmem__jnode *llmmem__fw_get(const llmmem__jnode *obj, const char *key);
/* A boolean value (true/false); -1 when absent or null. */
int llmmem__fw_bool(int *out, fw_ctx *x, const llmmem__jnode *obj, const char *key, const char *path);
/* An integer value; *present false when absent or null. */
int llmmem__fw_int(int64_t *out, bool *present, fw_ctx *x, const llmmem__jnode *obj, const char *key,
           const char *path);
/* A string value or NULL (absent or null); an error when of another type. */
int llmmem__fw_str(const char **out, fw_ctx *x, const llmmem__jnode *obj, const char *key, const char *path);
/* llmmem_config_set_str / _i64 with a failure reported at the node. */
int llmmem__fw_set(fw_ctx *x, int param, const char *value, const llmmem__jnode *n, const char *path);
int llmmem__fw_set_i64(fw_ctx *x, int param, int64_t value, const llmmem__jnode *n, const char *path);
/* LLMMEM_E_UNSUPPORTED at the node: "<reader>: <why>". */
int llmmem__fw_refuse(fw_ctx *x, const llmmem__jnode *n, const char *path, const char *fmt, ...) LLMMEM_PRINTF(4, 5);
/* A note on the configuration, prefixed with the reader and the file. */
void llmmem__fw_note(fw_ctx *x, const char *fmt, ...) LLMMEM_PRINTF(2, 3);
/* Collects a key the reader does not know (one note at the end). */
void llmmem__fw_unread(fw_ctx *x, const char *path);
/* Whether `key` is one of the NULL-terminated `list`. */
bool llmmem__fw_in(const char *key, const char *const *list);
/* A top-level key: counted as read when in `read`, collected as unread unless `ignored`. */
void llmmem__fw_tally(fw_ctx *x, const char *key, const char *const *read, const char *const *ignored);

/* The kind of framework file a document's root is (LLMMEM_FW_AUTO when none; framework.c). */
int llmmem__framework_kind(const llmmem__jnode *root);
/* The preset a torchtune model builder builds ("torchtune.models.llama3_1.lora_llama3_1_8b"
 * -> "llama-3.1-8b"), NULL when none (torchtune.c). */
const char *llmmem__torchtune_preset(const char *component);

/* The readers (torchtune.c, axolotl.c, accelerate.c, llamafactory.c). */
int llmmem__torchtune_apply(fw_ctx *x, const llmmem__jnode *root);
int llmmem__axolotl_apply(fw_ctx *x, const llmmem__jnode *root);
int llmmem__accelerate_apply(fw_ctx *x, const llmmem__jnode *root);
int llmmem__llamafactory_apply(fw_ctx *x, const llmmem__jnode *root);
/* The keys of HF TrainingArguments beyond training_args.c's (hf_recipes.c):
 * use_liger_kernel, torch_compile, gradient_checkpointing_kwargs, the
 * non-precision fsdp_config keys. Also read by the axolotl and LLaMA-Factory
 * readers, whose files pass them through to TrainingArguments. */
int llmmem__hf_recipe_keys(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg);
/* HF TrainingArguments (and LLaMA-Factory keys) as training_args.c reads them. */
int llmmem__hf_args_apply(const llmmem__json *doc, const llmmem__jnode *root, llmmem_config *cfg);
/* The names of the keys llmmem__hf_recipe_keys reads. */
extern const char *const llmmem__hf_recipe_key_names[];

#endif /* LLMMEM_INPUT_FRAMEWORK_H */
