/* Framework configuration files in YAML (torchtune recipes, axolotl,
 * accelerate config, LLaMA-Factory): llmmem_config_apply_framework_yaml and
 * _file and the detection of a file's kind; the helpers the readers share are
 * in fwkeys.c (framework.h). A file is applied all or nothing, to a copy of the
 * configuration; every error names the file, the key path and line:col. */
#include "input/framework.h"

#include <stdlib.h>
#include <string.h>

/* ---- kinds of file ------------------------------------------------------------- */

static const char *const kind_names[] = {"auto", "torchtune", "axolotl", "accelerate", "llamafactory"};

const char *llmmem_framework_name(int kind)
{
    return kind >= 0 && kind < (int)LLMMEM_ARRAY_LEN(kind_names) ? kind_names[kind] : NULL;
}

/* Keys only one kind of file has (their documentation and loaders):
 * torchtune recipes instantiate `_component_`s (torchtune/config/_instantiate.py)
 * and name tokenizer/checkpointer/dataset; axolotl has base_model with
 * sequence_len or micro_batch_size (utils/schemas/config.py); accelerate
 * `accelerate config` writes compute_environment and distributed_type
 * (commands/config/config_args.py); LLaMA-Factory model_name_or_path with
 * stage/finetuning_type/cutoff_len (hparams/). */
int llmmem__framework_kind(const llmmem__jnode *root)
{
    const llmmem__jnode *model = llmmem__json_get(root, "model");
    if (llmmem__json_is_object(model) && llmmem__json_get(model, "_component_"))
        return LLMMEM_FW_TORCHTUNE;
    if (llmmem__json_get(root, "checkpointer") && llmmem__json_get(root, "tokenizer"))
        return LLMMEM_FW_TORCHTUNE;
    if (llmmem__json_get(root, "base_model") &&
        (llmmem__json_get(root, "sequence_len") || llmmem__json_get(root, "micro_batch_size") ||
         llmmem__json_get(root, "adapter")))
        return LLMMEM_FW_AXOLOTL;
    if (llmmem__json_get(root, "compute_environment") || llmmem__json_get(root, "distributed_type"))
        return LLMMEM_FW_ACCELERATE;
    if (llmmem__json_get(root, "model_name_or_path") &&
        (llmmem__json_get(root, "stage") || llmmem__json_get(root, "finetuning_type") ||
         llmmem__json_get(root, "cutoff_len")))
        return LLMMEM_FW_LLAMAFACTORY;
    return LLMMEM_FW_AUTO;
}

int llmmem_framework_detect(int *kind, const char *yaml, size_t len)
{
    if (!kind || (!yaml && len))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_framework_detect: NULL argument");
    llmmem__json *doc = NULL;
    int rc = llmmem__yaml_parse(&doc, yaml, len, "<yaml>");
    if (rc)
        return rc;
    *kind = llmmem__framework_kind(llmmem__json_root(doc));
    llmmem__json_free(doc);
    return LLMMEM_OK;
}

static const fw_reader readers[] = {NULL, llmmem__torchtune_apply, llmmem__axolotl_apply, llmmem__accelerate_apply,
                                    llmmem__llamafactory_apply};
static const char *const reader_names[] = {"", "torchtune recipe", "axolotl config", "accelerate config",
                                           "LLaMA-Factory config"};

/* Parses, picks the reader and applies the file to a copy of cfg. */
static int apply_yaml(llmmem_config *cfg, int kind, const char *text, size_t len, const char *source)
{
    if (kind < LLMMEM_FW_AUTO || kind > LLMMEM_FW_LLAMAFACTORY)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown framework kind %d (0 auto .. 4 llamafactory)", kind);
    llmmem__json *doc = NULL;
    int rc = llmmem__yaml_parse(&doc, text, len, source);
    if (rc)
        return rc;
    const llmmem__jnode *root = llmmem__json_root(doc);
    if (!llmmem__json_is_object(root)) {
        rc = llmmem__input_type_error(doc, root, "", "a mapping of keys (a framework configuration)");
        llmmem__json_free(doc);
        return rc;
    }
    if (kind == LLMMEM_FW_AUTO && (kind = llmmem__framework_kind(root)) == LLMMEM_FW_AUTO) {
        rc = llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "",
                                   "not a framework file this library reads: none of torchtune's "
                                   "model._component_, axolotl's base_model + sequence_len, accelerate's "
                                   "distributed_type, LLaMA-Factory's model_name_or_path + stage");
        llmmem__json_free(doc);
        return rc;
    }
    /* a file of another kind given as this one is refused, not read for the keys the two
     * happen to share */
    const int looks = llmmem__framework_kind(root);
    if (looks != LLMMEM_FW_AUTO && looks != kind) {
        rc = llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "", "given as %s, but this looks like %s",
                                   reader_names[kind], reader_names[looks]);
        llmmem__json_free(doc);
        return rc;
    }
    llmmem_config *tmp = NULL;
    rc = llmmem_config_clone(&tmp, cfg);
    if (rc == 0) {
        fw_ctx x = {.doc = doc, .cfg = tmp, .reader = reader_names[kind]};
        rc = readers[kind](&x, root);
        /* none of its keys: not this reader's file (its defaults would be estimated) */
        if (rc == 0 && x.read_n == 0)
            rc = llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "",
                                       "none of the keys the %s reader reads%s%s: not a file of that kind",
                                       reader_names[kind], x.unread_n ? "; it has " : "", x.unread_n ? x.unread : "");
        if (rc == 0 && x.unread_n > 0)
            llmmem__fw_note(&x, "%d key%s not read (not known to change memory): %s", x.unread_n,
                    x.unread_n > 1 ? "s" : "", x.unread);
    }
    llmmem__json_free(doc);
    if (rc == 0)
        llmmem__config_take(cfg, tmp);
    llmmem_config_free(tmp);
    return rc;
}

int llmmem_config_apply_framework_yaml(llmmem_config *cfg, const llmmem_model *model, int kind,
                                       const char *yaml, size_t len)
{
    (void)model;
    if (!cfg || (!yaml && len))
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_apply_framework_yaml: NULL argument");
    char *copy = malloc(len + 1); /* the document points into the text: a stable copy */
    if (!copy)
        return llmmem__error(LLMMEM_E_NOMEM, "llmmem_config_apply_framework_yaml: out of memory");
    if (len)
        memcpy(copy, yaml, len);
    copy[len] = '\0';
    int rc = apply_yaml(cfg, kind, copy, len, "framework config");
    free(copy);
    return rc;
}

int llmmem_config_apply_framework_file(llmmem_config *cfg, const llmmem_model *model, int kind,
                                       const char *path)
{
    (void)model;
    if (!cfg || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_config_apply_framework_file: NULL argument");
    char *text = NULL;
    size_t len = 0;
    int rc = llmmem__read_file(&text, &len, path);
    if (rc)
        return rc;
    rc = apply_yaml(cfg, kind, text, len, path);
    free(text);
    return rc;
}
