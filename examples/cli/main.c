/* llmmem: the commands and the dispatcher (see cli.h for the whole CLI). Each command
 * parses its arguments against the flag groups of its row, answers --help, and runs. */
#include "cli.h"

#include <errno.h>
#include <string.h>

typedef struct command {
    cli_names names;
    const char *summary;    /* its line in llmmem --help */
    unsigned accepts;       /* CLI_G_*: the flags it takes */
    bool positional;        /* it reads positional arguments itself */
    const cli_help *help;   /* llmmem COMMAND --help, llmmem help COMMAND */
    int (*run)(cli_opts *o);
    int (*raw)(int argc, char **argv); /* parses its own arguments (llmmem vllm) */
} command;

#define INPUTS (CLI_G_SCENARIO | CLI_G_MODEL | CLI_G_FILES)

static const command commands[] = {
    {{"estimate", NULL}, "estimate a scenario (--scenario FILE, or model + parameter flags)",
     INPUTS | CLI_G_OUTPUT | CLI_G_SVG | CLI_G_STRICT | CLI_G_PARAMS, false, &cli_help_estimate,
     cli_run_estimate, NULL},
    {{"explain", NULL}, "estimate and show every term with its formula and source",
     INPUTS | CLI_G_OUTPUT | CLI_G_SVG | CLI_G_STRICT | CLI_G_PARAMS, false, &cli_help_explain,
     cli_run_explain, NULL},
    {{"model", NULL}, "describe a model (HF config.json, preset or raw numbers)",
     CLI_G_SCENARIO | CLI_G_MODEL | CLI_G_JSON, false, &cli_help_model, cli_run_model, NULL},
    {{"quick", NULL}, "estimate from a model size: quick 7B --gpus 8 --gpu-mem 80 --engine zero3",
     CLI_G_QUICK | CLI_G_OUTPUT | CLI_G_SVG | CLI_G_STRICT | CLI_G_PARAMS, true, &cli_help_quick,
     cli_run_quick, NULL},
    {{"plan", NULL}, "fastest layouts that fit N GPUs; --max-batch, --max-seq-len, --min-gpus",
     INPUTS | CLI_G_JSON | CLI_G_PARAMS | CLI_G_PLAN | CLI_G_STRICT | CLI_G_UNITS, false, &cli_help_plan,
     cli_run_plan,
     NULL},
    {{"timeline", NULL}, "the predicted allocation timeline: SVG chart, JSON, or a memory_viz snapshot",
     INPUTS | CLI_G_JSON | CLI_G_SVG | CLI_G_PARAMS, true, &cli_help_timeline, cli_run_timeline, NULL},
    {{"validate", NULL}, "check a scenario file", 0, true, &cli_help_validate, cli_run_validate, NULL},
    {{"presets", NULL}, "list the built-in models", CLI_G_JSON, false, &cli_help_presets,
     cli_run_presets, NULL},
    {{"architectures", NULL}, "list the config.json model_types: counted, multimodal, refused",
     CLI_G_JSON, false, &cli_help_architectures, cli_run_architectures, NULL},
    {{"gpus", NULL}, "list the GPU table", CLI_G_JSON, false, &cli_help_gpus, cli_run_gpus, NULL},
    {{"params", NULL}, "list the configuration parameters", CLI_G_JSON, false, &cli_help_params,
     cli_run_params, NULL},
    {{"vllm", NULL}, "a `vllm serve` line: llmmem vllm MODEL [vllm flags] [--gpu NAME]", 0, true,
     &cli_help_vllm, NULL, cli_run_vllm},
};

static const cli_names version_names[] = {{"--version", "-V"}, {"version", NULL}};

static void print_main_help(FILE *out)
{
    fputs("usage: llmmem COMMAND [options]\n"
          "\n"
          "Per-GPU memory of LLM training and inference, before launch.\n"
          "\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-13s %s\n", commands[i].names.name, commands[i].summary);
    fputs("\n"
          "llmmem COMMAND --help shows a command's options. llmmem --version prints the version.\n"
          "Errors: one line on stderr, \"llmmem: LLMMEM_E_...: message\"; exit status 2 for\n"
          "usage errors, 1 for other errors.\n",
          out);
}

/* llmmem help [COMMAND] */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        print_main_help(stdout);
        return 0;
    }
    int k = CLI_FIND(commands, argv[2]);
    if (k < 0)
        cli_fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE, "help: unknown command \"%s\"", argv[2]);
    cli_help_print(stdout, commands[k].help);
    return 0;
}

/* Parses the command's arguments, answers --help (with the parameter flags where the
 * command takes them), else runs it. */
static int run(const command *c, int argc, char **argv)
{
    cli_opts o;
    cli_parse(&o, argc, argv, c->accepts, c->names.name);
    if (o.help) {
        cli_help_print(stdout, c->help);
        if (c->accepts & CLI_G_PARAMS)
            cli_print_param_flags(stdout);
        return 0;
    }
    if (!c->positional)
        cli_need_no_positional(&o, c->names.name);
    return c->run(&o);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        print_main_help(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (cli_is_help(cmd)) {
        print_main_help(stdout);
        return 0;
    }
    if (cli_name_is(cmd, "help"))
        return help(argc, argv);
    if (CLI_FIND(version_names, cmd) >= 0) {
        printf("llmmem %s (library %s, soversion %d)\n", LLMMEM_VERSION_STRING,
               llmmem_version_string(), llmmem_soversion());
        return 0;
    }
    int k = CLI_FIND(commands, cmd);
    if (k < 0) {
        const char *names[32];
        int n = 0;
        for (size_t i = 0; i < sizeof commands / sizeof commands[0] && n < 32; i++)
            names[n++] = commands[i].names.name;
        char hint[96];
        cli_did_you_mean(hint, sizeof hint, "", cli_suggest(cmd, names, n));
        cli_fail_msg(LLMMEM_E_UNKNOWN_PARAM, EXIT_USAGE,
                     "unknown command \"%s\"%s; see llmmem --help", cmd, hint);
    }
    if (commands[k].raw)
        return commands[k].raw(argc - 2, argv + 2);
    return run(&commands[k], argc - 2, argv + 2);
}

/* Runs the command; output that could not be written (a full disk, a closed pipe) is an
 * error, not a success. */
int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write the output: %s",
                     errno ? strerror(errno) : "write error");
    return rc;
}
