/* llmmem params: every configuration parameter with its type, bounds, default, named
 * values and description, as text or JSON. */
#include "cli.h"

const cli_help cli_help_params = {
    "usage: llmmem params [--json]\n"
    "\n"
    "Lists every configuration parameter with its type, bounds, default, named values\n"
    "and description. Each is settable as --NAME VALUE on estimate, explain and quick,\n"
    "and as a key of its section in a scenario file.\n",
    0, NULL};

/* What params prints of one parameter. */
typedef struct param_doc {
    int id, nvalues;
    const char *type, *doc;
    char range[96], def[96];
} param_doc;

/* The default of a text parameter is read from a fresh configuration. */
static void text_default(char *def, size_t cap, int id)
{
    llmmem_config *c = NULL;
    size_t need;
    if (llmmem_config_new(&c) == 0)
        llmmem_config_get_str(def, cap, &need, c, id);
    llmmem_config_free(c);
}

/* Range and default as text, by the parameter's type. */
static void range_and_default(param_doc *d, int t)
{
    int64_t lo, hi, di;
    double lf, hf, df;
    if (t == LLMMEM_TYPE_F64) {
        if (llmmem_param_bounds_f64(&lf, &hf, d->id) == 0)
            snprintf(d->range, sizeof d->range, "%.17g..%.17g", lf, hf);
        if (llmmem_param_default_f64(&df, d->id) == 0)
            snprintf(d->def, sizeof d->def, "%.17g", df);
    } else if (t == LLMMEM_TYPE_ENUM) {
        if (llmmem_param_default_i64(&di, d->id) == 0) {
            const char *dn = llmmem_param_enum_name(d->id, di);
            snprintf(d->def, sizeof d->def, "%s", dn ? dn : "?");
        }
    } else if (t == LLMMEM_TYPE_I64 || t == LLMMEM_TYPE_BOOL) {
        if (llmmem_param_bounds_i64(&lo, &hi, d->id) == 0)
            snprintf(d->range, sizeof d->range, "%lld..%lld", (long long)lo, (long long)hi);
        if (llmmem_param_default_i64(&di, d->id) == 0)
            snprintf(d->def, sizeof d->def,
                     t == LLMMEM_TYPE_BOOL ? (di ? "true" : "false") : "%lld", (long long)di);
    } else if (t == LLMMEM_TYPE_STR) {
        text_default(d->def, sizeof d->def, d->id);
    }
}

static void describe(param_doc *d, int id)
{
    static const char *const tnames[] = {"?", "i64", "f64", "bool", "enum", "str", "u64"};
    int t = llmmem_param_type(id);
    d->id = id;
    d->type = t > 0 && t < 7 ? tnames[t] : "?";
    d->range[0] = d->def[0] = '\0';
    range_and_default(d, t);
    d->doc = llmmem_param_doc(id);
    d->nvalues = llmmem_param_enum_count(id);
}

static void print_json_row(const param_doc *d, bool last)
{
    printf("  {\"name\": ");
    cli_json_str(llmmem_param_name(d->id));
    printf(", \"id\": %d, \"type\": \"%s\", \"default\": ", d->id, d->type);
    cli_json_str(d->def);
    printf(", \"range\": ");
    cli_json_str(d->range);
    printf(", \"values\": [");
    for (int k = 0; k < d->nvalues; k++) {
        if (k)
            printf(", ");
        cli_json_str(llmmem_param_enum_name(d->id, k));
    }
    printf("], \"doc\": ");
    cli_json_str(d->doc ? d->doc : "");
    printf("}%s\n", last ? "" : ",");
}

static void print_text_row(const param_doc *d)
{
    printf("%-36s %-5s default %-12s", llmmem_param_name(d->id), d->type, d->def);
    if (d->range[0])
        printf(" range %s", d->range);
    if (d->nvalues > 0) {
        printf(" values ");
        for (int k = 0; k < d->nvalues; k++)
            printf("%s%s", k ? "|" : "", llmmem_param_enum_name(d->id, k));
    }
    printf("\n    %s\n", d->doc ? d->doc : "");
}

int cli_run_params(cli_opts *o)
{
    int n = llmmem_param_count();
    if (o->json)
        printf("[\n");
    for (int i = 0; i < n; i++) {
        param_doc d;
        describe(&d, llmmem_param_at(i));
        if (o->json)
            print_json_row(&d, i + 1 >= n);
        else
            print_text_row(&d);
    }
    if (o->json)
        printf("]\n");
    return 0;
}
