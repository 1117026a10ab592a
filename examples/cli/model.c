/* llmmem model: the model description (architecture fields, exact parameter counts, the
 * parser's assumptions) as a table or JSON. */
#include "cli.h"

const cli_help cli_help_model = {
    "usage: llmmem model (--hf-config FILE | --preset NAME | --scenario FILE | raw "
    "numbers) [--json]\n"
    "\n"
    "Prints the model description: architecture fields, exact parameter counts and the\n"
    "assumptions the parser made. Raw numbers: --num-parameters 7B, --num-layers N,\n"
    "--hidden-size N, --num-heads N, --num-kv-heads N, --intermediate-size N, --vocab-size N.\n",
    0, NULL};

static int model_json(char *buf, size_t cap, size_t *need, const void *m)
{
    return llmmem_model_to_json(buf, cap, need, m);
}

static void print_model(const llmmem_model *m)
{
    char mtype[64] = "";
    size_t need;
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    printf("model_type            %s\n", mtype[0] ? mtype : "(raw)");
    int n = llmmem_model_key_count();
    for (int i = 0; i < n; i++) {
        int key = llmmem_model_key_at(i);
        int64_t v;
        char g[40];
        if (llmmem_model_get_i64(&v, m, key) == 0)
            printf("%-21s %s\n", llmmem_model_key_name(key), cli_group(g, sizeof g, v));
    }
    int notes = llmmem_model_note_count(m);
    for (int i = 0; i < notes; i++)
        printf("note: %s\n", llmmem_model_note(m, i));
}

int cli_run_model(cli_opts *o)
{
    llmmem_model *m;
    llmmem_config *cfg;
    cli_build_inputs(&m, &cfg, o, "model");
    if (o->json)
        cli_print_json(model_json, m, false);
    else
        print_model(m);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}
