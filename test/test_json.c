/* Tests of the JSON layer (src/json.c): positions, parse errors, typed readers,
#define _POSIX_C_SOURCE 200809L
 * file reading. Expected line:col values are counted by hand from the inputs. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "input/input.h"

#include <cjson/cJSON.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_error_has(const char *fragment)
{
    const char *e = llmmem_last_error();
    if (!strstr(e, fragment))
        fail_msg("error \"%s\" lacks \"%s\"", e, fragment);
}

static llmmem__json *parse_ok(const char *text)
{
    llmmem__json *doc = NULL;
    int rc = llmmem__json_parse(&doc, text, strlen(text), "t.json");
    if (rc != 0)
        fail_msg("parse failed: %s", llmmem_last_error());
    return doc;
}

static void parse_bad(const char *text, size_t len, int status, const char *fragment)
{
    llmmem__json *doc = (llmmem__json *)1;
    assert_int_equal(llmmem__json_parse(&doc, text, len, "t.json"), status);
    assert_null(doc);
    assert_error_has(fragment);
}

static void test_positions(void **state)
{
    (void)state;
    const char *text = "{\n"
                       "  \"a\": 1,\n"
                       "  \"b\": [true, \"x\", {\"c\": null}],\n"
                       "  \"d\": 2.5\n"
                       "}";
    llmmem__json *doc = parse_ok(text);
    const llmmem__jnode *root = llmmem__json_root(doc);
    int line, col;
    llmmem__json_pos(doc, root, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
    const llmmem__jnode *a = llmmem__json_get(root, "a");
    llmmem__json_pos(doc, a, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 8);
    const llmmem__jnode *b = llmmem__json_get(root, "b");
    assert_int_equal(llmmem__json_type(b), LLMMEM__J_ARRAY);
    assert_int_equal(llmmem__json_array_size(b), 3);
    const llmmem__jnode *it = llmmem__json_first(b);
    llmmem__json_pos(doc, it, &line, &col);
    assert_int_equal(line, 3);
    assert_int_equal(col, 9);
    it = llmmem__json_next(it);
    assert_string_equal(llmmem__json_string(it), "x");
    llmmem__json_pos(doc, it, &line, &col);
    assert_int_equal(col, 15);
    it = llmmem__json_next(it);
    const llmmem__jnode *c = llmmem__json_get(it, "c");
    assert_int_equal(llmmem__json_type(c), LLMMEM__J_NULL);
    llmmem__json_pos(doc, c, &line, &col);
    assert_int_equal(line, 3);
    assert_int_equal(col, 26);
    /* the third member keeps its own position (4:8) */
    const llmmem__jnode *m = llmmem__json_first(root);
    m = llmmem__json_next(llmmem__json_next(m));
    assert_string_equal(llmmem__json_key(m), "d");
    llmmem__json_pos(doc, m, &line, &col);
    assert_int_equal(line, 4);
    assert_int_equal(col, 8);
    /* case-sensitive lookup */
    assert_null(llmmem__json_get(root, "A"));
    assert_string_equal(llmmem__json_source(doc), "t.json");
    llmmem__json_free(doc);
}

/* One input contract for every reader (issue 20): a key written twice, a NUL
 * escape, and line:col under LF, CR LF and a lone CR. */
static void test_strict_contract(void **state)
{
    (void)state;
    parse_bad("{\"a\": 1, \"a\": 2}", 16, LLMMEM_E_SCHEMA, "t.json:1:15: \"a\": duplicate key (first at 1:7)");
    parse_bad("{\"x\": {\"k\": 1,\n \"k\": 2}}", 24, LLMMEM_E_SCHEMA,
              "t.json:2:7: \"x.k\": duplicate key (first at 1:13)");
    /* a large object goes through the hash table: the same message */
    char big[4096];
    size_t n = (size_t)snprintf(big, sizeof big, "{");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "\"k%d\": %d, ", i, i);
    n += (size_t)snprintf(big + n, sizeof big - n, "\"k7\": 0}");
    parse_bad(big, n, LLMMEM_E_SCHEMA, "\"k7\": duplicate key (first at 1:");
    parse_bad("{\"o\": \"adamw\\u0000x\"}", 21, LLMMEM_E_PARSE,
              "t.json:1:13: \\u0000 (NUL) inside a string is not accepted");
    parse_bad("{\"a\": 1,\r\"b\": }", 15, LLMMEM_E_PARSE, "t.json:2:6: unexpected character '}'");
    parse_bad("{\"a\": 1,\r\n\"b\": }", 16, LLMMEM_E_PARSE, "t.json:2:6: unexpected character '}'");
    parse_bad("{\"a\": 1,\n\r\n\r\"b\": }", 18, LLMMEM_E_PARSE, "t.json:4:6: unexpected character '}'");
}

static void test_utf8_columns(void **state)
{
    (void)state;
    /* "é" is two bytes but one column: the value 1 is at column 17. */
    llmmem__json *doc = parse_ok("{\"\xc3\xa9\": \"\xc3\xa9\", \"k\": 1}");
    int line, col;
    llmmem__json_pos(doc, llmmem__json_get(llmmem__json_root(doc), "k"), &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 17);
    llmmem__json_free(doc);
}

static void test_parse_errors(void **state)
{
    (void)state;
    parse_bad("", 0, LLMMEM_E_PARSE, "t.json:1:1: empty input");
    parse_bad("  \n ", 4, LLMMEM_E_PARSE, "t.json:2:2: empty input");
    parse_bad("{\"a\": 1", 7, LLMMEM_E_PARSE, "t.json:1:8: unexpected end of input");
    parse_bad("{\"a\": 1,\n \"b\": }", 16, LLMMEM_E_PARSE, "t.json:2:7: unexpected character '}'");
    parse_bad("{\"a\" 1}", 7, LLMMEM_E_PARSE, "t.json:1:6: unexpected character '1', expected ':'");
    parse_bad("[1, 2,]", 7, LLMMEM_E_PARSE, "t.json:1:7:");
    parse_bad("{\"a\": tru}", 10, LLMMEM_E_PARSE, "t.json:1:10: invalid literal");
    parse_bad("{\"a\": 01}", 9, LLMMEM_E_PARSE, "t.json:1:8: invalid number");
    parse_bad("{\"a\": \"x\ny\"}", 12, LLMMEM_E_PARSE, "t.json:1:9: control character");
    parse_bad("{} {}", 5, LLMMEM_E_PARSE, "t.json:1:4: unexpected character '{', text after the end");
    parse_bad("{\"a\": \"\\q\"}", 11, LLMMEM_E_PARSE, "invalid escape");
    parse_bad("{\"a\": \"abc", 10, LLMMEM_E_PARSE, "t.json:1:11: unexpected end of input inside a string");
    /* length bounds the text: the NUL-terminated tail is not read */
    parse_bad("{\"a\": 12}", 8, LLMMEM_E_PARSE, "t.json:1:9: unexpected end of input");
    /* deep nesting is refused before cJSON sees it */
    char deep[1201];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    deep[1200] = '\0';
    parse_bad(deep, 1200, LLMMEM_E_PARSE, "nesting deeper");
}

/* RFC 8259 section 6: number = [ minus ] int [ frac ] [ exp ]; frac = decimal-point
 * 1*DIGIT; exp = e [ minus / plus ] 1*DIGIT; int = zero / ( digit1-9 *DIGIT ). A dot
 * or an exponent without its digits, a leading zero, a leading '+' or '.' is not a
 * number (strtod, which cJSON calls, would take "80." and "1e"). The error is at the
 * first character that breaks the grammar: the one after the dot, after the 'e', or
 * the digit after a leading zero (columns counted by hand below). */
static void test_number_grammar(void **state)
{
    (void)state;
    /* {"a": 80.}: '8' col 7, '.' col 9, '}' col 10 */
    parse_bad("{\"a\": 80.}", 10, LLMMEM_E_PARSE, "t.json:1:10: invalid number");
    /* on line 2, "  \"a\": 80." then the newline at col 11 */
    parse_bad("{\n  \"a\": 80.\n}", 15, LLMMEM_E_PARSE, "t.json:2:11: invalid number");
    /* [80.] at the end of the text: col 5 is the ']' */
    parse_bad("[80.]", 5, LLMMEM_E_PARSE, "t.json:1:5: invalid number");
    /* the text ends right after the dot: col 4 */
    parse_bad("80.", 3, LLMMEM_E_PARSE, "t.json:1:4: invalid number");
    parse_bad("-1.", 3, LLMMEM_E_PARSE, "t.json:1:4: invalid number");
    /* "80.e3": the 'e' (col 4) stands where a digit must */
    parse_bad("80.e3", 5, LLMMEM_E_PARSE, "t.json:1:4: invalid number");
    /* "1e" and "1e+": the exponent has no digit; the ']' at col 4, col 5 */
    parse_bad("[1e]", 4, LLMMEM_E_PARSE, "t.json:1:4: invalid number");
    parse_bad("[1e+]", 5, LLMMEM_E_PARSE, "t.json:1:5: invalid number");
    /* neither '+' nor a bare '.' starts a number */
    parse_bad("[+1]", 4, LLMMEM_E_PARSE, "t.json:1:2:");
    parse_bad("[.5]", 4, LLMMEM_E_PARSE, "t.json:1:2:");
    /* and what the grammar allows parses */
    llmmem__json *doc = parse_ok("[80.0, 0.5, -0, 1E+2, 2e-1, 0e0]");
    const llmmem__jnode *n = llmmem__json_first(llmmem__json_root(doc));
    assert_true(llmmem__json_number(n) == 80.0);
    llmmem__json_free(doc);
}

static void test_parse_ok_forms(void **state)
{
    (void)state;
    llmmem__json *doc = parse_ok("\xEF\xBB\xBF [1e3, -0.5, \"\\u00e9\\n\", false] ");
    const llmmem__jnode *it = llmmem__json_first(llmmem__json_root(doc));
    assert_true(llmmem__json_number(it) == 1000.0);
    it = llmmem__json_next(it);
    assert_true(llmmem__json_number(it) == -0.5);
    it = llmmem__json_next(it);
    assert_string_equal(llmmem__json_string(it), "\xc3\xa9\n");
    it = llmmem__json_next(it);
    assert_int_equal(llmmem__json_type(it), LLMMEM__J_BOOL);
    assert_false(llmmem__json_true(it));
    llmmem__json_free(doc);
    /* text need not be NUL-terminated */
    char buf[8] = {'{', '"', 'a', '"', ':', '7', '}', 'X'};
    assert_int_equal(llmmem__json_parse(&doc, buf, 7, "b"), 0);
    assert_true(llmmem__json_number(llmmem__json_get(llmmem__json_root(doc), "a")) == 7.0);
    llmmem__json_free(doc);
}

static void test_read_i64(void **state)
{
    (void)state;
    const char *text = "{\n"
                       "  \"ok\": 4096,\n"
                       "  \"s\": \"abc\",\n"
                       "  \"f\": 1.5,\n"
                       "  \"neg\": -3,\n"
                       "  \"big\": 1e300,\n"
                       "  \"huge\": 18014398509481984,\n"
                       "  \"b\": true,\n"
                       "  \"n\": null,\n"
                       "  \"w\": 2.0e3\n"
                       "}";
    llmmem__json *doc = parse_ok(text);
    const llmmem__jnode *r = llmmem__json_root(doc);
    int64_t v = -1;
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "ok", NULL, 1, 100000, true), 0);
    assert_int_equal(v, 4096);
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "w", NULL, 1, 100000, true), 0);
    assert_int_equal(v, 2000);

    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "s", "num_hidden_layers", 1, 100000, true),
                     LLMMEM_E_SCHEMA);
    assert_error_has("t.json:3:8: \"num_hidden_layers\": expected an integer in [1, 100000], got \"abc\"");
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "f", NULL, 1, 100, true), LLMMEM_E_SCHEMA);
    assert_error_has("t.json:4:8: \"f\": expected an integer in [1, 100], got 1.5");
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "neg", NULL, 1, 100, true),
                     LLMMEM_E_OUT_OF_RANGE);
    assert_error_has("t.json:5:10: \"neg\": expected an integer in [1, 100], got -3");
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "big", NULL, 1, 100, true),
                     LLMMEM_E_OUT_OF_RANGE);
    assert_error_has("got 1e300");
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "huge", NULL, 1, INT64_MAX, true),
                     LLMMEM_E_OUT_OF_RANGE);
    assert_error_has("2^53");
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "b", NULL, 1, 100, true), LLMMEM_E_SCHEMA);
    assert_error_has("got true");
    /* null and absent: unchanged when optional, an error when required */
    v = 77;
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "n", NULL, 1, 100, false), 0);
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "zz", NULL, 1, 100, false), 0);
    assert_int_equal(v, 77);
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "zz", "model.zz", 1, 100, true),
                     LLMMEM_E_SCHEMA);
    assert_error_has("t.json:1:1: \"model.zz\": missing required key");
    assert_int_equal(llmmem__json_read_i64(&v, doc, r, "n", NULL, 1, 100, true), LLMMEM_E_SCHEMA);
    assert_error_has("\"n\": missing");
    llmmem__json_free(doc);
}

static void test_read_others(void **state)
{
    (void)state;
    llmmem__json *doc = parse_ok("{\"r\": 0.5, \"s\": \"llama\", \"b\": false, \"o\": {\"x\": 1},"
                                 " \"l\": [1, 2]}");
    const llmmem__jnode *r = llmmem__json_root(doc);
    double d = 0;
    assert_int_equal(llmmem__json_read_f64(&d, doc, r, "r", NULL, 0.0, 1.0, true), 0);
    assert_true(d == 0.5);
    assert_int_equal(llmmem__json_read_f64(&d, doc, r, "r", NULL, 0.6, 1.0, true),
                     LLMMEM_E_OUT_OF_RANGE);
    assert_error_has("t.json:1:7: \"r\": expected a number");
    assert_int_equal(llmmem__json_read_f64(&d, doc, r, "s", NULL, 0.0, 1.0, true), LLMMEM_E_SCHEMA);
    assert_error_has("got \"llama\"");
    bool b = true;
    assert_int_equal(llmmem__json_read_bool(&b, doc, r, "b", NULL, true), 0);
    assert_false(b);
    assert_int_equal(llmmem__json_read_bool(&b, doc, r, "r", NULL, true), LLMMEM_E_SCHEMA);
    assert_error_has("expected true or false, got 0.5");
    char buf[6];
    assert_int_equal(llmmem__json_read_str(buf, sizeof buf, doc, r, "s", NULL, true), 0);
    assert_string_equal(buf, "llama");
    char small[3];
    assert_int_equal(llmmem__json_read_str(small, sizeof small, doc, r, "s", NULL, true),
                     LLMMEM_E_OUT_OF_RANGE);
    assert_int_equal(llmmem__json_read_str(buf, sizeof buf, doc, r, "o", NULL, true),
                     LLMMEM_E_SCHEMA);
    assert_error_has("expected a string, got {\"x\": 1}");
    assert_int_equal(llmmem__json_read_str(buf, sizeof buf, doc, r, "l", NULL, true),
                     LLMMEM_E_SCHEMA);
    assert_error_has("got [1, 2]");
    assert_int_equal(llmmem__json_error_at(doc, llmmem__json_get(r, "b"), LLMMEM_E_INCONSISTENT,
                                           "x.y", "custom %d", 5),
                     LLMMEM_E_INCONSISTENT);
    assert_error_has("t.json:1:31: \"x.y\": custom 5");
    /* readers on a non-object: absent */
    int64_t v = 3;
    assert_int_equal(llmmem__json_read_i64(&v, doc, llmmem__json_get(r, "l"), "x", NULL, 0, 9,
                                           false), 0);
    assert_int_equal(v, 3);
    assert_int_equal(llmmem__json_type(NULL), LLMMEM__J_INVALID);
    llmmem__json_free(doc);
    llmmem__json_free(NULL);
}

static void test_read_file(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(llmmem__read_file(&text, &len, "/nonexistent/config.json"), LLMMEM_E_IO);
    assert_error_has("/nonexistent/config.json");
    assert_null(text);
    assert_int_equal(llmmem__read_file(&text, &len, "/tmp"), LLMMEM_E_IO);
    assert_error_has("\"/tmp\": it is a directory");

    char path[] = "/tmp/llmmem_test_json_XXXXXX";
    FILE *f = NULL;
    {
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        f = fdopen(fd, "w");
    }
    assert_non_null(f);
    fputs("{\"a\": 1}\n", f);
    fclose(f);
    assert_int_equal(llmmem__read_file(&text, &len, path), 0);
    assert_int_equal(len, 9);
    assert_string_equal(text, "{\"a\": 1}\n");
    free(text);
    remove(path);
}

/* ---- the tree is cJSON's (src/input/json.c builds it without cJSON's parser) ---- */

/* Whether two trees are equal: types, member names and order, strings, numbers
 * bit for bit, cJSON's links (the first child's prev is the last). */
static bool same_tree(const cJSON *a, const cJSON *b)
{
    for (; a && b; a = a->next, b = b->next) {
        if ((a->type & 0xFF) != (b->type & 0xFF) || !a->string != !b->string ||
            (a->string && strcmp(a->string, b->string)) || !a->valuestring != !b->valuestring ||
            (a->valuestring && strcmp(a->valuestring, b->valuestring)) || a->valueint != b->valueint ||
            memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) || !a->child != !b->child)
            return false;
        if (a->child && ((a->child->prev == NULL) != (b->child->prev == NULL) || !same_tree(a->child, b->child)))
            return false;
    }
    return !a && !b;
}

static int compared, refused;

/* Parses a file both ways: where the strict parse accepts it, cJSON must build
 * the same tree. */
static int compare_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag != FTW_F)
        return 0;
    char *text = NULL;
    size_t len = 0;
    if (llmmem__read_file(&text, &len, path))
        return 0;
    llmmem__json *doc = NULL;
    if (llmmem__json_parse(&doc, text, len, path) == 0) {
        const char *end = NULL;
        cJSON *ref = cJSON_ParseWithLengthOpts(text, len, &end, false);
        /* cJSON refuses a value of one character after a byte order mark
         * ("\xEF\xBB\xBF" "1"), where the library used to report "cJSON could
         * not build the document (out of memory?)"; nothing else */
        if (!ref && !(len <= 4 && len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)))
            fail_msg("%s: cJSON refuses what the strict parse accepts", path);
        else if (ref && !same_tree(ref, llmmem__json_root(doc)))
            fail_msg("%s: the tree differs from cJSON's", path);
        cJSON_Delete(ref);
        llmmem__json_free(doc);
        compared++;
    } else {
        refused++;
    }
    free(text);
    return 0;
}

static void test_same_tree_as_cjson(void **state)
{
    (void)state;
    static const char *const inline_cases[] = {
        "{\"a\": [1, -0, 0.5, 1e300, -2.5E-3, 123456789012345678, 9007199254740993, 1.0000000000000000001],"
        " \"b\": \"x\\u00e9\\ud83d\\ude00\\n\\t\\\"\\/\", \"c\": {}, \"d\": [], \"e\": [true, false, null],"
        " \"f\": {\"g\": {\"h\": [[1], {\"i\": 2}]}}}",
        "[2147483647, 2147483648, -2147483648, -2147483649, 1e10, -1e10]",
        "\xEF\xBB\xBF {\"bom\": 1}", "\"plain\"", "42", "null",
    };
    for (size_t i = 0; i < sizeof inline_cases / sizeof *inline_cases; i++) {
        llmmem__json *doc = parse_ok(inline_cases[i]);
        cJSON *ref = cJSON_ParseWithLengthOpts(inline_cases[i], strlen(inline_cases[i]), NULL, false);
        assert_non_null(ref);
        if (!same_tree(ref, llmmem__json_root(doc)))
            fail_msg("case %zu: the tree differs from cJSON's", i);
        cJSON_Delete(ref);
        llmmem__json_free(doc);
    }
    /* numbers: random digits, points and exponents (the fast path and strtod) */
    uint64_t x = UINT64_C(88172645463325252);
    for (int i = 0; i < 20000; i++) {
        char num[80];
        size_t at = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x & 1)
            num[at++] = '-';
        int ni = 1 + (int)((x >> 1) % 20), nf = (int)((x >> 6) % 20);
        for (int d = 0; d < ni; d++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            num[at++] = (char)('0' + (d == 0 && ni > 1 ? 1 + x % 9 : x % 10));
        }
        if (nf) {
            num[at++] = '.';
            for (int d = 0; d < nf; d++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                num[at++] = (char)('0' + x % 10);
            }
        }
        if ((x >> 11) % 3 == 0)
            at += (size_t)snprintf(num + at, sizeof num - at, "e%s%d", (x >> 13) & 1 ? "-" : "+", (int)((x >> 14) % 40));
        num[at] = '\0';
        llmmem__json *doc = parse_ok(num);
        cJSON *ref = cJSON_ParseWithLengthOpts(num, at, NULL, false);
        assert_non_null(ref);
        if (!same_tree(ref, llmmem__json_root(doc)))
            fail_msg("number %s: %.17g, cJSON %.17g", num, llmmem__json_number(llmmem__json_root(doc)), ref->valuedouble);
        cJSON_Delete(ref);
        llmmem__json_free(doc);
    }
    /* every file of the test data and of the fuzz corpus */
    compared = refused = 0;
    assert_int_equal(nftw("test/data", compare_file, 16, FTW_PHYS), 0);
    assert_int_equal(nftw("fuzz/corpus", compare_file, 16, FTW_PHYS), 0);
    if (compared < 500)
        fail_msg("only %d files parsed (%d refused): run from the repository root", compared, refused);
    print_message("compared %d documents with cJSON's trees (%d refused by the strict scan)\n", compared, refused);
}

/* A large object's members are found through its name table, the small ones
 * in order; a duplicate is reported wherever it is. */
static void test_lookups(void **state)
{
    (void)state;
    char text[4096];
    size_t at = 0;
    at += (size_t)snprintf(text + at, sizeof text - at, "{");
    for (int i = 0; i < 100; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s\"key_%d\": %d", i ? ", " : "", i, i * 3);
    snprintf(text + at, sizeof text - at, ", \"\": 7, \"k\\u00e9\": 8}");
    llmmem__json *doc = parse_ok(text);
    const llmmem__jnode *root = llmmem__json_root(doc);
    for (int i = 0; i < 100; i++) {
        char key[32];
        snprintf(key, sizeof key, "key_%d", i);
        const llmmem__jnode *n = llmmem__json_get(root, key);
        assert_non_null(n);
        assert_true(llmmem__json_number(n) == i * 3);
    }
    assert_null(llmmem__json_get(root, "key_100"));
    assert_null(llmmem__json_get(root, "key_"));
    assert_null(llmmem__json_get(root, "Key_1"));
    assert_true(llmmem__json_number(llmmem__json_get(root, "")) == 7);
    assert_true(llmmem__json_number(llmmem__json_get(root, "k\xc3\xa9")) == 8);
    llmmem__json_free(doc);
    /* a duplicate in a large object, and one in a small object inside it */
    snprintf(text + at, sizeof text - at, ", \"key_7\": 1}");
    llmmem__json *bad = NULL;
    assert_int_equal(llmmem__json_parse(&bad, text, strlen(text), "t.json"), LLMMEM_E_SCHEMA);
    assert_error_has("\"key_7\": duplicate key (first at 1:");
    const char *nested = "{\"a\": 1, \"b\": {\"c\": [{\"d\": 1, \"d\": 2}]}}";
    assert_int_equal(llmmem__json_parse(&bad, nested, strlen(nested), "t.json"), LLMMEM_E_SCHEMA);
    assert_error_has("t.json:1:36: \"b.c.d\": duplicate key (first at 1:28)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positions),     cmocka_unit_test(test_utf8_columns),
        cmocka_unit_test(test_parse_errors),  cmocka_unit_test(test_parse_ok_forms),
        cmocka_unit_test(test_number_grammar), cmocka_unit_test(test_strict_contract),
        cmocka_unit_test(test_read_i64),      cmocka_unit_test(test_read_others),
        cmocka_unit_test(test_read_file),     cmocka_unit_test(test_same_tree_as_cjson),
        cmocka_unit_test(test_lookups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
