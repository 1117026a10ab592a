/* Models named as people name them: a Hugging Face Hub id ("meta-llama/Llama-3.1-8B-Instruct"),
 * a preset, or a local folder, resolved offline (llmmem_model_from_pretrained), and the model
 * a framework file names (llmmem_model_from_framework_file).
 *
 * The order is transformers' from_pretrained(name, local_files_only=True) with the presets in
 * front of the cache: a local folder holding config.json; a built-in preset (its name, or a
 * Hub id of presets.c); the config.json of the local Hugging Face cache, found as
 * huggingface_hub's try_to_load_from_cache finds it (file_download.py):
 *   <cache>/models--ORG--NAME/                      repo_folder_name(repo_id, "model")
 *   refs/main          the commit main points to   (read whole, as open(...).read())
 *   .no_exist/<commit>/config.json                 "the Hub has no such file" (a miss)
 *   snapshots/<commit>/config.json                 the file (no other revision is tried)
 * The cache folder is the caller's: this library reads no environment variable (the CLI and
 * the Python package pass huggingface_hub's HF_HUB_CACHE; constants.py). No network. */
#include "input/framework.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define PATH_LEN 4096

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A repo id as huggingface_hub's validate_repo_id takes it (utils/_validators.py): at most
 * one '/', letters, digits, '-', '_', '.', no "--" or "..", not starting or ending with '-'
 * or '.', at most 96 characters a part. */
static bool valid_repo_id(const char *id)
{
    size_t n = strlen(id), part = 0;
    int slashes = 0;
    if (n == 0 || n > 96 + 1 + 96 || strstr(id, "--") || strstr(id, ".."))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (c == '/') {
            if (++slashes > 1 || part == 0)
                return false;
            part = 0;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_' || c == '.'))
            return false;
        if ((part == 0 || i + 1 == n || id[i + 1] == '/') && (c == '-' || c == '.'))
            return false;
        if (++part > 96)
            return false;
    }
    return part > 0;
}

/* ---- the nearest presets ---------------------------------------------------------------------- */

/* The letters and digits of the repository name (after the '/'), lower case, without the
 * suffixes a fine-tune or a quantized copy adds ("Meta-Llama-3.1-8B-Instruct-AWQ" ->
 * "metallama318b"). */
static void name_key(char *out, size_t cap, const char *id)
{
    static const char *const tails[] = {"instruct", "chat", "it", "hf", "base", "pt", "awq", "gptq",
                                        "gguf", "fp8", "int4", "int8", "bnb", "4bit", "8bit", NULL};
    const char *slash = strrchr(id, '/');
    char buf[128];
    snprintf(buf, sizeof buf, "%s", slash ? slash + 1 : id);
    for (bool again = true; again;) {
        again = false;
        char *dash = strrchr(buf, '-');
        if (!dash)
            break;
        for (int i = 0; tails[i]; i++)
            if (strcasecmp(dash + 1, tails[i]) == 0) {
                *dash = '\0';
                again = true;
                break;
            }
    }
    size_t o = 0;
    for (const char *c = buf; *c && o + 1 < cap; c++) {
        char ch = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
            out[o++] = ch;
    }
    out[o] = '\0';
}

/* "a? also near: b, c": the k presets whose name, or a Hub id of theirs, is nearest to
 * `written`, the nearest first. */
static void nearest_presets(char *out, size_t cap, const char *written, int k)
{
    enum { K_MAX = 4 };
    int best[K_MAX], dist[K_MAX], got = 0;
    char want[128], key[128];
    name_key(want, sizeof want, written);
    k = k > K_MAX ? K_MAX : k;
    for (int i = 0; i < llmmem_preset_count(); i++) {
        const char *name = llmmem_preset_name(i);
        name_key(key, sizeof key, name);
        int d = llmmem__edit_distance(want, key);
        const char *preset = NULL;
        for (int j = 0; j < llmmem__hub_id_count(); j++) {
            const char *id = llmmem__hub_id_at(j, &preset);
            if (strcmp(preset, name) != 0)
                continue;
            name_key(key, sizeof key, id);
            int e = llmmem__edit_distance(want, key);
            d = e < d ? e : d;
        }
        int at = got < k ? got++ : k;
        if (at == k && d >= dist[k - 1])
            continue;
        if (at == k)
            at = k - 1;
        while (at > 0 && dist[at - 1] > d) { /* insertion, stable for equal distances */
            best[at] = best[at - 1];
            dist[at] = dist[at - 1];
            at--;
        }
        best[at] = i;
        dist[at] = d;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < got && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i == 0 ? "" : i == 1 ? "? also near: " : ", ",
                              llmmem_preset_name(best[i]));
    if (o < cap && got == 1)
        snprintf(out + o, cap - o, "?");
}

/* ---- the Hugging Face cache ------------------------------------------------------------------- */

/* Whether `rev` names an entry of `dir` (os.listdir membership: one path component). */
static bool listed(const char *dir, const char *rev)
{
    if (!*rev || strchr(rev, '/') || !strcmp(rev, ".") || !strcmp(rev, ".."))
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;)
        found = strcmp(e->d_name, rev) == 0;
    closedir(d);
    return found;
}

/* out = "a/b"; false when it does not fit. */
static bool join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s/%s", a, b);
    return n >= 0 && (size_t)n < cap;
}

/* The config.json of `id` in the cache: 1 with its path in `path` (PATH_LEN); 0 with why
 * not in `why`. */
static int cache_lookup(char *path, char *why, size_t cap, const char *cache, const char *id)
{
    char repo[PATH_LEN], folder[208], rev[48] = "main", f[PATH_LEN], sub[128];
    snprintf(folder, sizeof folder, "models--%s", id); /* repo_folder_name: "/" -> "--" */
    for (char *c = folder + 8; (c = strchr(c, '/')) != NULL;) {
        memmove(c + 2, c + 1, strlen(c + 1) + 1);
        c[0] = c[1] = '-';
    }
    if (!join(repo, sizeof repo, cache, folder) || !join(f, sizeof f, repo, "refs/main")) {
        snprintf(why, cap, "the path is too long");
        return 0;
    }
    if (!is_dir(cache)) {
        snprintf(why, cap, "no such folder");
        return 0;
    }
    if (!is_dir(repo)) {
        snprintf(why, cap, "no folder %.200s (huggingface-cli download %.100s config.json puts it there)",
                 folder, id);
        return 0;
    }
    if (is_file(f)) { /* revision = open(refs/main).read() */
        char *text = NULL;
        size_t len = 0;
        if (llmmem__read_file(&text, &len, f) != 0) {
            snprintf(why, cap, "%.200s/refs/main cannot be read", folder);
            return 0;
        }
        snprintf(rev, sizeof rev, "%.*s", (int)(len < sizeof rev ? len : sizeof rev - 1), text);
        free(text);
        bool name = strlen(rev) == len && *rev && strcmp(rev, ".") && strcmp(rev, "..");
        for (const char *c = rev; name && *c; c++) /* a commit, branch or tag name, one component */
            name = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                   *c == '.' || *c == '-' || *c == '_';
        if (!name) {
            snprintf(why, cap, "%.200s/refs/main does not hold a commit name", folder);
            return 0;
        }
    }
    snprintf(sub, sizeof sub, ".no_exist/%s/config.json", rev);
    if (join(f, sizeof f, repo, sub) && is_file(f)) {
        snprintf(why, cap, "%.200s records that commit %s has no config.json (.no_exist)", folder, rev);
        return 0;
    }
    if (!join(f, sizeof f, repo, "snapshots") || !listed(f, rev)) {
        snprintf(why, cap, "%.200s has no snapshot %s (the commit of refs/main)", folder, rev);
        return 0;
    }
    snprintf(sub, sizeof sub, "snapshots/%s/config.json", rev);
    if (!join(path, PATH_LEN, repo, sub) || !is_file(path)) {
        snprintf(why, cap, "%.200s/snapshots/%s has no config.json", folder, rev);
        return 0;
    }
    return 1;
}

/* ---- the resolution ---------------------------------------------------------------------------- */

static int from_preset(struct llmmem_model **out, const char *preset, const char *id)
{
    int rc = llmmem_model_from_preset(out, preset);
    if (rc == 0 && id && strcasecmp(id, preset) != 0)
        llmmem__model_note(*out, "%s: the built-in preset %s (the same architecture in its config.json)", id,
                           preset);
    return rc;
}

int llmmem__model_resolve(struct llmmem_model **out, const char *name, const char *hub_cache, bool local)
{
    char path[PATH_LEN], why[512];
    if (local && is_file(name)) /* a config.json given by its path */
        return llmmem_model_from_hf_file(out, name);
    if (local && is_dir(name)) { /* a local folder, as from_pretrained takes it first */
        if (snprintf(path, sizeof path, "%s/config.json", name) >= (int)sizeof path)
            return llmmem__error(LLMMEM_E_OUT_OF_RANGE, "\"%.80s...\": path too long", name);
        if (!is_file(path))
            return llmmem__error(LLMMEM_E_IO, "%s: a folder without config.json", name);
        return llmmem_model_from_hf_file(out, path);
    }
    for (int i = 0; i < llmmem_preset_count(); i++)
        if (strcasecmp(llmmem_preset_name(i), name) == 0)
            return from_preset(out, llmmem_preset_name(i), NULL);
    const char *preset = llmmem__preset_of_hub_id(name);
    if (preset)
        return from_preset(out, preset, name);
    char near[160];
    nearest_presets(near, sizeof near, name, 3);
    if (!strchr(name, '/'))
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM,
                             "no preset named \"%.100s\" (did you mean %s; llmmem presets lists the %d; a "
                             "Hugging Face model is named org/name)",
                             name, near, llmmem_preset_count());
    if (!valid_repo_id(name))
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM,
                             "no model \"%.100s\": not a preset (did you mean %s) nor a Hugging Face id "
                             "(org/name: letters, digits, '-', '_', '.')",
                             name, near);
    if (!hub_cache || !*hub_cache)
        return llmmem__error(LLMMEM_E_UNKNOWN_PARAM,
                             "no model \"%.100s\": not a built-in preset (did you mean %s), and no Hugging "
                             "Face cache to look in: give its config.json instead",
                             name, near);
    if (cache_lookup(path, why, sizeof why, hub_cache, name)) {
        int rc = llmmem_model_from_hf_file(out, path);
        if (rc == 0) {
            snprintf((*out)->name, sizeof (*out)->name, "%s", name);
            llmmem__model_note(*out, "%s: config.json from the Hugging Face cache, %s", name, path);
        }
        return rc;
    }
    return llmmem__error(LLMMEM_E_UNKNOWN_PARAM,
                         "no model \"%.100s\": not a built-in preset (did you mean %s), and not in the "
                         "Hugging Face cache %.200s: %s",
                         name, near, hub_cache, why);
}

int llmmem_model_from_pretrained(llmmem_model **out, const char *name, const char *hub_cache)
{
    if (!out || !name)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_pretrained: NULL argument");
    *out = NULL;
    return llmmem__model_resolve(out, name, hub_cache, true);
}

/* ---- the model a framework file names --------------------------------------------------------- */

/* The node naming the model, and its key path: axolotl base_model_config, else base_model
 * (axolotl/utils/models.py load_model_config); LLaMA-Factory model_name_or_path
 * (hparams/model_args.py); torchtune checkpointer.checkpoint_dir when that folder holds a
 * config.json (FullModelHFCheckpointer), else model._component_ (a builder). */
static const llmmem__jnode *model_node(const llmmem__jnode *root, int kind, const char **path)
{
    switch (kind) {
    case LLMMEM_FW_AXOLOTL:
        *path = llmmem__fw_get(root, "base_model_config") ? "base_model_config" : "base_model";
        return llmmem__fw_get(root, *path);
    case LLMMEM_FW_LLAMAFACTORY: *path = "model_name_or_path"; return llmmem__fw_get(root, "model_name_or_path");
    case LLMMEM_FW_TORCHTUNE: {
        const llmmem__jnode *ck = llmmem__fw_get(root, "checkpointer");
        const llmmem__jnode *dir = ck ? llmmem__fw_get(ck, "checkpoint_dir") : NULL;
        const llmmem__jnode *m = llmmem__fw_get(root, "model");
        char f[PATH_LEN];
        if (llmmem__json_is_string(dir) &&
            snprintf(f, sizeof f, "%s/config.json", llmmem__json_string(dir)) < (int)sizeof f && is_file(f)) {
            *path = "checkpointer.checkpoint_dir";
            return dir;
        }
        *path = "model._component_";
        return m ? llmmem__fw_get(m, "_component_") : NULL;
    }
    default: return NULL;
    }
}

static int framework_model(struct llmmem_model **out, const llmmem__json *doc, int kind, const char *hub_cache)
{
    const llmmem__jnode *root = llmmem__json_root(doc);
    if (!llmmem__json_is_object(root))
        return llmmem__input_type_error(doc, root, "", "a mapping of keys (a framework configuration)");
    if (kind == LLMMEM_FW_AUTO)
        kind = llmmem__framework_kind(root);
    if (kind < LLMMEM_FW_TORCHTUNE || kind > LLMMEM_FW_LLAMAFACTORY)
        return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, "",
                                     "not a framework file that names a model (torchtune, axolotl, "
                                     "LLaMA-Factory)");
    const char *path = "";
    const llmmem__jnode *n = model_node(root, kind, &path);
    if (!n)
        return llmmem__json_error_at(doc, root, LLMMEM_E_SCHEMA, path, "the %s file names no model%s",
                                     llmmem_framework_name(kind),
                                     kind == LLMMEM_FW_ACCELERATE ? " (an accelerate config never does)"
                                                                  : ": the key is missing");
    if (!llmmem__json_is_string(n))
        return llmmem__input_type_error(doc, n, path, "a model name or path (string)");
    const char *name = llmmem__json_string(n);
    int rc;
    if (kind == LLMMEM_FW_TORCHTUNE && !strcmp(path, "model._component_")) {
        const char *preset = llmmem__torchtune_preset(name);
        if (!preset)
            return llmmem__json_error_at(doc, n, LLMMEM_E_UNKNOWN_PARAM, path,
                                         "\"%.100s\" is not a builder of a preset, and "
                                         "checkpointer.checkpoint_dir holds no config.json: pass the "
                                         "model (--hf-config or --preset)",
                                         name);
        rc = from_preset(out, preset, name);
    } else {
        rc = llmmem__model_resolve(out, name, hub_cache, true);
    }
    return rc ? llmmem__input_wrap(doc, n, path, rc) : LLMMEM_OK;
}

int llmmem_model_from_framework_file(llmmem_model **out, int kind, const char *path, const char *hub_cache)
{
    if (!out || !path)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "llmmem_model_from_framework_file: NULL argument");
    *out = NULL;
    if (kind < LLMMEM_FW_AUTO || kind > LLMMEM_FW_LLAMAFACTORY)
        return llmmem__error(LLMMEM_E_INVALID_ARG, "unknown framework kind %d (0 auto .. 4 llamafactory)", kind);
    char *text = NULL;
    size_t len = 0;
    int rc = llmmem__read_file(&text, &len, path);
    if (rc)
        return rc;
    llmmem__json *doc = NULL;
    rc = llmmem__yaml_parse(&doc, text, len, path);
    if (rc == 0)
        rc = framework_model(out, doc, kind, hub_cache);
    llmmem__json_free(doc);
    free(text);
    return rc;
}
