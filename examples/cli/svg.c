/* --svg FILE: the verdict as a chart. The first bar stacks what makes the total per GPU
 * (the peak phase's components = peak allocated, then the allocator's reserve above it,
 * then the CUDA context and the memory outside PyTorch) against the GPU capacity line; the
 * bars after it are the live allocated bytes at each phase's peak, for the shape of the
 * step. A title says the model and the verdict, a subtitle the settings; sizes honour
 * --units. */
#include "cli.h"

#include <errno.h>
#include <string.h>

static const char *const colours[] = {"#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f",
                                      "#8cd17d", "#b6992d", "#f1ce63", "#499894", "#86bcb6",
                                      "#e15759", "#ff9d9a", "#79706e", "#bab0ac"};
#define RESERVE_COLOUR "#d3d3d3"
#define CONTEXT_COLOUR "#6b6b6b"

/* The chart: its geometry and the values it draws. */
typedef struct chart {
    const llmmem_result *r;
    enum cli_units units;
    double unit;    /* bytes per axis unit */
    const char *un; /* its name */
    int phases[16], np, nc, peak;
    uint64_t maxv, cap, total, allocated, reserved, context;
    double tick; /* axis units per tick */
    int nticks;
    int left, top, plot_h, bar_w, gap, plot_w, legend_x, width, height;
    char settings[4][200];
    int nsettings;
} chart;

/* Text with &, < and > escaped. */
static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else
            fputc(*s, f);
    }
}

/* The settings wrapped into lines of at most `cols` characters (at ", "); their count. */
static int wrap(char lines[][200], int max, const char *text, size_t cols)
{
    int n = 0;
    while (*text && n < max) {
        size_t len = strlen(text), cut = len;
        if (len > cols) {
            cut = 0;
            for (size_t i = 0; i + 1 < cols && i + 1 < len; i++)
                if (text[i] == ',' && text[i + 1] == ' ')
                    cut = i + 1;
            if (cut == 0)
                cut = cols;
        }
        if (cut >= 200)
            cut = 199;
        memcpy(lines[n], text, cut);
        lines[n++][cut] = '\0';
        text += cut;
        while (*text == ' ')
            text++;
    }
    return n;
}

static void chart_init(chart *c, const llmmem_result *r, enum cli_units units,
                       const char *settings)
{
    int nph = llmmem_phase_count();
    c->r = r;
    c->units = units;
    c->nsettings = wrap(c->settings, 4, settings, 120);
    c->top = 50 + 16 * c->nsettings;
    c->height = c->top + 340 + 64;
    c->unit = units == UNITS_GB ? 1e9 : 1073741824.0;
    c->un = units == UNITS_GB ? "GB" : "GiB";
    c->nc = llmmem_component_count();
    c->np = 0;
    c->peak = (int)cli_result_i64(r, LLMMEM_R_PEAK_PHASE);
    c->cap = cli_result_u64(r, LLMMEM_R_GPU_MEMORY_BYTES);
    c->total = cli_result_u64(r, LLMMEM_R_TOTAL_BYTES_PER_GPU);
    c->allocated = cli_result_u64(r, LLMMEM_R_PEAK_ALLOCATED_BYTES);
    c->reserved = cli_result_u64(r, LLMMEM_R_PEAK_RESERVED_BYTES);
    c->context = cli_result_u64(r, LLMMEM_R_CUDA_CONTEXT_BYTES);
    c->maxv = c->cap > c->total ? c->cap : c->total;
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
    /* the axis: 1, 2 or 5 x 10^k units per tick, the top tick above the tallest bar and
     * its label */
    double top = (double)(c->maxv + c->maxv / 12) / c->unit, raw = top / 8.0, p = 1e-3;
    while (p * 10 <= raw)
        p *= 10;
    c->tick = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
    c->nticks = (int)(top / c->tick + 0.999999);
    if (c->nticks < 1)
        c->nticks = 1;
    c->maxv = (uint64_t)(c->tick * c->nticks * c->unit);
    c->left = 80, c->plot_h = 340, c->bar_w = 70, c->gap = 34;
    c->plot_w = (c->np + 1) * (c->bar_w + c->gap) + c->gap + 30;
    c->legend_x = c->left + c->plot_w + 160;
    c->width = c->legend_x + 200;
    if (c->width < 900)
        c->width = 900;
}

static double y_of(const chart *c, uint64_t v)
{
    return c->top + c->plot_h - c->plot_h * (double)v / (double)c->maxv;
}

/* The header, the title and settings, the background and the axis with 5 ticks. */
static void svg_head(FILE *f, const chart *c, const char *title, const char *settings)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            c->width, c->height, c->width, c->height);
    fprintf(f, "<title>");
    svg_text(f, title);
    fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", c->width,
            c->height);
    fprintf(f, "<text x=\"16\" y=\"24\" font-size=\"15\" font-weight=\"bold\" class=\"title\">");
    svg_text(f, title);
    fprintf(f, "</text>\n<text x=\"16\" y=\"44\" fill=\"#555\" class=\"settings\">");
    for (int i = 0; i < c->nsettings; i++) {
        fprintf(f, "<tspan x=\"16\" dy=\"%d\">", i ? 16 : 0);
        svg_text(f, c->settings[i]);
        fprintf(f, "</tspan>");
    }
    fprintf(f, "</text>\n");
    (void)settings;
    for (int i = 0; i <= c->nticks; i++) {
        double v = c->tick * i;
        double y = y_of(c, (uint64_t)(v * c->unit));
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                c->left, y, c->left + c->plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n", c->left - 6,
                y + 4, v, c->un);
    }
}

/* One stacked segment from *base up by v bytes, with a tooltip. */
static void svg_segment(FILE *f, const chart *c, int x, int w, uint64_t *base, uint64_t v,
                        const char *colour, const char *what)
{
    if (v == 0)
        return;
    char b[64];
    double y1 = y_of(c, *base + v), y0 = y_of(c, *base);
    fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\" "
               "class=\"segment\"><title>%s: %s</title></rect>\n",
            x, y1, w, y0 - y1, colour, what, cli_fmt_bytes(b, sizeof b, v, c->units));
    *base += v;
}

/* The first bar: the peak phase's components, the allocator's reserve, the CUDA context;
 * its top is total_bytes_per_gpu. */
static void svg_total_bar(FILE *f, const chart *c)
{
    int x = c->left + c->gap;
    uint64_t base = 0, sum = 0;
    for (int i = 0; i < c->nc; i++) {
        uint64_t v = 0;
        if (llmmem_result_component_bytes(&v, c->r, c->peak, i) != 0)
            continue;
        sum += v;
        svg_segment(f, c, x, c->bar_w + 20, &base, v, colours[i % 14], llmmem_component_name(i));
    }
    /* the peak phase's components sum to the peak allocated bytes; the reserve is what
     * the allocator holds above them */
    base = sum > c->allocated ? sum : c->allocated;
    svg_segment(f, c, x, c->bar_w + 20, &base, c->reserved > base ? c->reserved - base : 0,
                RESERVE_COLOUR, "allocator reserve (reserved - allocated)");
    base = c->reserved > base ? c->reserved : base;
    svg_segment(f, c, x, c->bar_w + 20, &base, c->context, CONTEXT_COLOUR,
                "CUDA context and memory outside PyTorch");
    char b[64];
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\" "
               "class=\"total\">%s</text>\n",
            x + (c->bar_w + 20) / 2, y_of(c, c->total) - 5,
            cli_fmt_bytes(b, sizeof b, c->total, c->units));
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">total per "
               "GPU</text>\n",
            x + (c->bar_w + 20) / 2, c->top + c->plot_h + 16);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">(peak: %s)</text>\n",
            x + (c->bar_w + 20) / 2, c->top + c->plot_h + 30, llmmem_phase_name(c->peak));
}

/* The k-th phase bar: the live allocated bytes at that phase's peak, by component. */
static void svg_phase_bar(FILE *f, const chart *c, int k)
{
    int p = c->phases[k];
    int x = c->left + c->gap + 20 + (k + 1) * (c->bar_w + c->gap) + 10;
    uint64_t base = 0, tot = 0;
    for (int i = 0; i < c->nc; i++) {
        uint64_t v = 0;
        if (llmmem_result_component_bytes(&v, c->r, p, i) == 0)
            svg_segment(f, c, x, c->bar_w, &base, v, colours[i % 14], llmmem_component_name(i));
    }
    llmmem_result_phase_bytes(&tot, c->r, p);
    char b[64];
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + c->bar_w / 2,
            c->top + c->plot_h + 16, llmmem_phase_name(p));
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555\">%.2f</text>\n",
            x + c->bar_w / 2, y_of(c, tot) - 4, (double)tot / c->unit);
    (void)b;
}

/* The dashed capacity line, the baseline and the caption of the phase bars. */
static void svg_capacity(FILE *f, const chart *c)
{
    char b[64];
    if (c->cap > 0) {
        double y = y_of(c, c->cap);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d62728\" "
                   "stroke-width=\"2\" stroke-dasharray=\"6,4\" class=\"capacity\"/>\n",
                c->left, y, c->left + c->plot_w, y);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#d62728\">GPU capacity</text>\n"
                   "<text x=\"%d\" y=\"%.1f\" fill=\"#d62728\">%s</text>\n",
                c->left + c->plot_w + 6, y - 3, c->left + c->plot_w + 6, y + 12,
                cli_fmt_bytes(b, sizeof b, c->cap, c->units));
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", c->left,
            c->top + c->plot_h, c->left + c->plot_w, c->top + c->plot_h);
    int x0 = c->left + c->gap + c->bar_w + 20 + c->gap / 2 + 5;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\"/>\n", x0, c->top,
            x0, c->top + c->plot_h);
    if (c->np > 0)
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">allocated at each phase's peak "
                   "(%s; no reserve, no context)</text>\n",
                x0 + 8, c->top + c->plot_h + 46, c->un);
}

/* The components that appear in some bar, with their colours, then reserve and context. */
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
    static const struct {
        const char *colour, *name;
    } extra[] = {{RESERVE_COLOUR, "allocator reserve"}, {CONTEXT_COLOUR, "CUDA context"}};
    for (size_t i = 0; i < 2; i++) {
        ly += 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">%s</text>\n",
                c->legend_x, ly - 10, extra[i].colour, c->legend_x + 18, ly, extra[i].name);
    }
}

void cli_write_svg(const char *path, const llmmem_result *r, const char *title,
                   const char *settings, enum cli_units units)
{
    FILE *f = fopen(path, "w");
    if (!f)
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write \"%s\": %s", path, strerror(errno));
    chart c;
    chart_init(&c, r, units, settings);
    svg_head(f, &c, title, settings);
    svg_total_bar(f, &c);
    for (int k = 0; k < c.np; k++)
        svg_phase_bar(f, &c, k);
    svg_capacity(f, &c);
    svg_legend(f, &c);
    fprintf(f, "</svg>\n");
    int err = ferror(f) ? errno : 0;
    if (fclose(f) != 0 || err)
        cli_fail_msg(LLMMEM_E_IO, EXIT_FAIL, "cannot write \"%s\": %s", path,
                     strerror(err ? err : errno));
}
