/* --svg FILE: a stacked bar of the components per phase, with the GPU capacity line. */
#include "cli.h"

#include <errno.h>
#include <string.h>

static const char *const colours[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f",
                                      "#8cd17d", "#b6992d", "#f1ce63", "#499894", "#86bcb6",
                                      "#e15759", "#ff9d9a", "#79706e", "#bab0ac"};

#define GIB 1073741824.0

/* The chart: the phases that hold bytes, the largest value on the axis, the geometry. */
typedef struct chart {
    const llmmem_result *r;
    int phases[16], np, nc;
    uint64_t maxv, cap;
    int left, top, plot_h, bar_w, gap, plot_w, legend_x;
} chart;

static void chart_init(chart *c, const llmmem_result *r)
{
    int nph = llmmem_phase_count();
    c->r = r;
    c->nc = llmmem_component_count();
    c->np = 0;
    c->cap = cli_result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    c->maxv = c->cap;
    for (int p = 0; p < nph && c->np < 16; p++) {
        uint64_t v = 0;
        if (llmmem_result_phase_bytes(&v, r, p) == 0 && v > 0) {
            c->phases[c->np++] = p;
            if (v > c->maxv)
                c->maxv = v;
        }
    }
    if (c->maxv == 0)
        c->maxv = 1;
    c->left = 70, c->top = 30, c->plot_h = 360, c->bar_w = 80, c->gap = 40;
    c->plot_w = c->np * (c->bar_w + c->gap) + c->gap;
    c->legend_x = c->left + c->plot_w + 30;
}

/* The header, the background and the axis with 5 ticks in GiB. */
static void svg_axis(FILE *f, const chart *c)
{
    int width = c->legend_x + 230, height = c->top + c->plot_h + 60;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<title>llmmem: memory per GPU by phase</title>\n");
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    for (int i = 0; i <= 5; i++) {
        double v = (double)c->maxv * i / 5.0;
        double y = c->top + c->plot_h - c->plot_h * (double)i / 5.0;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                c->left, y, c->left + c->plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f GiB</text>\n",
                c->left - 6, y + 4, v / GIB);
    }
}

/* The k-th bar: one rectangle per component, the phase name below, the total on top. */
static void svg_bar(FILE *f, const chart *c, int k)
{
    int p = c->phases[k];
    int x = c->left + c->gap + k * (c->bar_w + c->gap);
    double y = c->top + c->plot_h;
    for (int i = 0; i < c->nc; i++) {
        uint64_t v = 0;
        if (llmmem_result_component_bytes(&v, c->r, p, i) != 0 || v == 0)
            continue;
        double h = c->plot_h * (double)v / (double)c->maxv;
        y -= h;
        fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\">"
                   "<title>%s: %.3f GiB</title></rect>\n",
                x, y, c->bar_w, h, colours[i % 14], llmmem_component_name(i), (double)v / GIB);
    }
    uint64_t tot = 0;
    llmmem_result_phase_bytes(&tot, c->r, p);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + c->bar_w / 2,
            c->top + c->plot_h + 16, llmmem_phase_name(p));
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%.2f GiB</text>\n",
            x + c->bar_w / 2, y - 4, (double)tot / GIB);
}

/* The dashed capacity line and the baseline. */
static void svg_capacity(FILE *f, const chart *c)
{
    if (c->cap > 0) {
        double y = c->top + c->plot_h - c->plot_h * (double)c->cap / (double)c->maxv;
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d62728\" "
                   "stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n",
                c->left, y, c->left + c->plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#d62728\" text-anchor=\"end\">GPU capacity "
                   "%.1f GiB</text>\n",
                c->left + c->plot_w, y - 5, (double)c->cap / GIB);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", c->left,
            c->top + c->plot_h, c->left + c->plot_w, c->top + c->plot_h);
}

/* The components that appear in some bar, with their colours. */
static void svg_legend(FILE *f, const chart *c)
{
    int ly = c->top;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">components</text>\n", c->legend_x,
            ly);
    for (int i = 0; i < c->nc; i++) {
        bool used = false;
        for (int k = 0; k < c->np && !used; k++) {
            uint64_t v = 0;
            used = llmmem_result_component_bytes(&v, c->r, c->phases[k], i) == 0 && v > 0;
        }
        if (!used)
            continue;
        ly += 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">%s</text>\n",
                c->legend_x, ly - 10, colours[i % 14], c->legend_x + 18, ly,
                llmmem_component_name(i));
    }
}

void cli_write_svg(const char *path, const llmmem_result *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write \"%s\": %s", path, strerror(errno));
    chart c;
    chart_init(&c, r);
    svg_axis(f, &c);
    for (int k = 0; k < c.np; k++)
        svg_bar(f, &c, k);
    svg_capacity(f, &c);
    svg_legend(f, &c);
    fprintf(f, "</svg>\n");
    if (fclose(f) != 0)
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write \"%s\"", path);
}
