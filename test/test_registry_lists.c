/* Tests of the registry's per-layer inputs (src/model/registry.h): a feed-forward
 * list (mlp_layer_types), per-layer integer lists summed (QT_LIST), string lists
 * counted (QT_LIST with choices: indexer_types "full"), one number standing for
 * every layer, a boolean key that also reads a string (gating: true or
 * "per-head"), and their bad inputs. Expected counts are worked out by hand in the comments (and agree
 * with transformers 5.17 on the meta device). Runs from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "input/input.h"

#include <stdio.h>
#include <string.h>

static llmmem_model *from_text(const char *json)
{
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_hf_json(&m, json, strlen(json));
    if (rc)
        fail_msg("parse failed (%d): %s", rc, llmmem_last_error());
    return m;
}

static void bad_text(const char *json, int status, const char *frag1, const char *frag2)
{
    llmmem_model *m = NULL;
    int rc = llmmem_model_from_hf_json(&m, json, strlen(json));
    if (rc != status)
        fail_msg("status %d, wanted %d (%s)", rc, status, llmmem_last_error());
    const char *e = llmmem_last_error();
    if (!strstr(e, frag1) || (frag2 && !strstr(e, frag2)))
        fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", e, frag1, frag2 ? frag2 : "");
}

#define MELLUM                                                                                           \
    "{\"model_type\": \"mellum\", \"vocab_size\": 1000, \"hidden_size\": 64, \"num_hidden_layers\": 3, " \
    "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 16, \"intermediate_size\": 128, " \
    "\"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32, "

/* mlp_layer_types decides which layers hold the MoE block. */
static void test_ffn_list(void **state)
{
    (void)state;
    llmmem_model *m = from_text(MELLUM "\"mlp_layer_types\": [\"dense\", \"sparse\", \"dense\"]}");
    /* per layer: q 64x64 + k, v 32x64 + o 64x64 = 12288, q/k norms 2 x 16, two norms 2 x 64;
     * dense MLP 3 x 64 x 128 = 24576; MoE: gate 4 x 64 + experts 4 x 64 x 64 + 4 x 64 x 32 = 24832;
     * embeddings and head 2 x 64000, final norm 64:
     * 128064 + 3 x 12448 + 2 x 24576 + 24832 = 239392 */
    assert_int_equal(m->params, 239392);
    assert_int_equal(m->num_moe_layers, 1);
    llmmem_model_free(m);

    /* without the list the class's rule: every layer sparse */
    m = from_text(MELLUM "\"tie_word_embeddings\": false}");
    assert_int_equal(m->num_moe_layers, 3);
    assert_int_equal(m->params, 128064 + 3 * (12448 + 24832));
    llmmem_model_free(m);

    bad_text(MELLUM "\"mlp_layer_types\": [\"dense\", \"sparse\"]}", LLMMEM_E_INCONSISTENT,
             "\"mlp_layer_types\": has 2 entries but num_hidden_layers is 3", NULL);
    bad_text(MELLUM "\"mlp_layer_types\": [\"dense\", \"medium\", \"dense\"]}", LLMMEM_E_UNSUPPORTED,
             "layer 1 is \"medium\"", "not a feed-forward kind of mellum");
    bad_text(MELLUM "\"mlp_layer_types\": [\"dense\", 2, \"dense\"]}", LLMMEM_E_SCHEMA, "mlp_layer_types",
             "expected a string entry");
    bad_text(MELLUM "\"mlp_layer_types\": \"dense\"}", LLMMEM_E_SCHEMA, "mlp_layer_types", "expected an array");
}

#define LAGUNA                                                                                            \
    "{\"model_type\": \"laguna\", \"vocab_size\": 100, \"hidden_size\": 32, \"num_hidden_layers\": 2, "   \
    "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 8, \"intermediate_size\": 64, " \
    "\"num_experts\": 2, \"num_experts_per_tok\": 1, \"moe_intermediate_size\": 16, "                     \
    "\"shared_expert_intermediate_size\": 16, \"mlp_layer_types\": [\"dense\", \"sparse\"], "

/* Heads per layer summed from a list; the output gate per head or per channel. */
static void test_list_sum(void **state)
{
    (void)state;
    llmmem_model *m = from_text(LAGUNA "\"num_attention_heads_per_layer\": [4, 2], \"gating\": true}");
    /* layer 0 (4 heads): q, o 2 x 4 x 8 x 32, g_proj 4 x 32, k, v 2 x 16 x 32: 3200;
     * layer 1 (2 heads): 2 x 2 x 8 x 32 + 2 x 32 + 1024 = 2112; q/k norms 2 x 2 x 8, norms 2 x 2 x 32;
     * dense MLP 3 x 32 x 64 = 6144; MoE: gate 2 x 32 + its correction bias 2, experts 2 x 32 x 32 +
     * 2 x 32 x 16, shared experts 3 x 32 x 16: 4674; embeddings and head 2 x 3200, final norm 32:
     * 6432 + 3200 + 2112 + 32 + 128 + 6144 + 4674 = 22722 */
    assert_int_equal(m->params, 22722);
    llmmem_model_free(m);

    /* gating neither true nor "per-head": g_proj one value per channel, 4 x 8 and 2 x 8 rows */
    m = from_text(LAGUNA "\"num_attention_heads_per_layer\": [4, 2], \"gating\": \"per-element\"}");
    assert_int_equal(m->params, 22722 + (32 - 4) * 32 + (16 - 2) * 32);
    llmmem_model_free(m);
    m = from_text(LAGUNA "\"num_attention_heads_per_layer\": [4, 2], \"gating\": \"per-head\"}");
    assert_int_equal(m->params, 22722);
    llmmem_model_free(m);

    /* absent: num_attention_heads in every layer: layer 1 as layer 0 */
    m = from_text(LAGUNA "\"gating\": true}");
    assert_int_equal(m->params, 22722 - 2112 + 3200);
    llmmem_model_free(m);

    bad_text(LAGUNA "\"num_attention_heads_per_layer\": [4, \"2\"]}", LLMMEM_E_SCHEMA,
             "num_attention_heads_per_layer", NULL);
    bad_text(LAGUNA "\"num_attention_heads_per_layer\": {\"0\": 4}}", LLMMEM_E_SCHEMA,
             "num_attention_heads_per_layer", "expected an array");
    bad_text(LAGUNA "\"gating\": 1}", LLMMEM_E_SCHEMA, "\"gating\"", NULL);
}

/* A list that may be one number for every layer: the mean is the top-k. */
static void test_per_layer_number(void **state)
{
    (void)state;
    const char *base = "{\"model_type\": \"hunyuan_v1_moe\", \"vocab_size\": 100, \"hidden_size\": 32, "
                       "\"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"head_dim\": 8, "
                       "\"intermediate_size\": 16, \"num_experts\": 4, ";
    char text[512];
    snprintf(text, sizeof text, "%s\"moe_topk\": [2, 4]}", base);
    llmmem_model *m = from_text(text);
    assert_int_equal(m->experts_per_token, 3);
    llmmem_model_free(m);
    snprintf(text, sizeof text, "%s\"moe_topk\": 3}", base);
    m = from_text(text);
    assert_int_equal(m->experts_per_token, 3);
    int64_t total = m->params;
    llmmem_model_free(m);
    snprintf(text, sizeof text, "%s\"num_experts_per_tok\": 2}", base);
    m = from_text(text);
    assert_int_equal(m->experts_per_token, 2);
    assert_int_equal(m->params, total); /* top-k changes no parameter */
    llmmem_model_free(m);
}

/* Entries of a string list among the entry's choices (indexer_types "full"). */
static void test_list_count(void **state)
{
    (void)state;
    const char *base = "{\"model_type\": \"hy_v4\", \"vocab_size\": 100, \"hidden_size\": 32, "
                       "\"intermediate_size\": 64, \"num_hidden_layers\": 3, \"num_attention_heads\": 2, "
                       "\"q_lora_rank\": 16, \"kv_lora_rank\": 8, \"qk_nope_head_dim\": 8, "
                       "\"qk_rope_head_dim\": 4, \"v_head_dim\": 8, \"index_head_dim\": 4, \"index_n_heads\": 2, "
                       "\"n_routed_experts\": 2, \"num_experts_per_tok\": 1, \"moe_intermediate_size\": 8, ";
    char text[768];
    snprintf(text, sizeof text, "%s\"indexer_types\": [\"full\", \"shared\", \"shared\"]}", base);
    llmmem_model *m = from_text(text);
    int64_t one = m->params;
    llmmem_model_free(m);
    snprintf(text, sizeof text, "%s\"indexer_types\": [\"full\", \"full\", \"shared\"]}", base);
    m = from_text(text);
    /* one more indexer: wq_b 2 x 4 x 16, wk 4 x 32, k_norm 2 x 4, weights_proj 2 x 32 */
    assert_int_equal(m->params - one, 128 + 128 + 8 + 64);
    llmmem_model_free(m);
    snprintf(text, sizeof text, "%s\"indexer_types\": [\"full\", 1, \"shared\"]}", base);
    bad_text(text, LLMMEM_E_SCHEMA, "indexer_types", "expected a string entry");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ffn_list),
        cmocka_unit_test(test_list_sum),
        cmocka_unit_test(test_per_layer_number),
        cmocka_unit_test(test_list_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
