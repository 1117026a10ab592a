/* llmmem validate FILE: loads a scenario (and its model) and says OK or why not. */
#include "cli.h"

const cli_help cli_help_validate = {
    "usage: llmmem validate FILE\n"
    "\n"
    "Loads a scenario file (and its model) and prints \"FILE: OK ...\" or the error with\n"
    "the key path and line:column. Exit status 0 when valid, 1 when not.\n",
    0, NULL};

int cli_run_validate(cli_opts *o)
{
    if (o->npositional != 1)
        cli_usage_error("validate: expected one FILE, got %d arguments", o->npositional);
    llmmem_model *m = NULL;
    llmmem_config *cfg = NULL;
    int rc = llmmem_scenario_from_file_hub(&m, &cfg, o->positional[0], cli_hub_cache());
    if (rc)
        cli_fail_lib(rc, EXIT_FAIL, NULL);
    char mtype[64] = "", mode[32] = "", engine[32] = "", g[40];
    size_t need;
    int64_t params = 0;
    llmmem_model_type(mtype, sizeof mtype, &need, m);
    llmmem_model_get_i64(&params, m, LLMMEM_M_PARAMS);
    llmmem_config_get_str(mode, sizeof mode, &need, cfg, LLMMEM_P_MODE);
    llmmem_config_get_str(engine, sizeof engine, &need, cfg, LLMMEM_P_ENGINE);
    printf("%s: OK (model %s, %s parameters; %s, engine %s)\n", o->positional[0],
           mtype[0] ? mtype : "(raw)", cli_group(g, sizeof g, params), mode, engine);
    llmmem_model_free(m);
    llmmem_config_free(cfg);
    return 0;
}
