/* The 2 KB config.json the bench programs parse (bench_plan.c times it,
 * bench_count.c counts its instructions): Llama-3's fields and the defaults
 * PretrainedConfig.save_pretrained writes, the name and sizes from hf_sizes. */
#ifndef LLMMEM_BENCH_HF_TEXT_H
#define LLMMEM_BENCH_HF_TEXT_H

#include <stdbool.h>
#include <stdio.h>

/* A 2 KB config.json: Llama-3's fields plus the defaults that
 * PretrainedConfig.save_pretrained writes when asked for the full dict; the
 * name and the sizes are filled in from hf_sizes. */
static const char hf_template[] =
    "{\n"
    "  \"_name_or_path\": \"meta-llama/%s\",\n"
    "  \"architectures\": [\"LlamaForCausalLM\"],\n"
    "  \"attention_bias\": false,\n"
    "  \"attention_dropout\": 0.0,\n"
    "  \"bos_token_id\": 128000,\n"
    "  \"eos_token_id\": 128001,\n"
    "  \"hidden_act\": \"silu\",\n"
    "  \"hidden_size\": %d,\n"
    "  \"initializer_range\": 0.02,\n"
    "  \"intermediate_size\": %d,\n"
    "  \"max_position_embeddings\": 8192,\n"
    "  \"mlp_bias\": false,\n"
    "  \"model_type\": \"llama\",\n"
    "  \"num_attention_heads\": %d,\n"
    "  \"num_hidden_layers\": %d,\n"
    "  \"num_key_value_heads\": %d,\n"
    "  \"pretraining_tp\": 1,\n"
    "  \"rms_norm_eps\": 1e-05,\n"
    "  \"rope_scaling\": null,\n"
    "  \"rope_theta\": 500000.0,\n"
    "  \"tie_word_embeddings\": %s,\n"
    "  \"torch_dtype\": \"bfloat16\",\n"
    "  \"transformers_version\": \"4.40.0.dev0\",\n"
    "  \"use_cache\": true,\n"
    "  \"vocab_size\": %d,\n"
    "  \"add_cross_attention\": false,\n"
    "  \"bad_words_ids\": null,\n"
    "  \"begin_suppress_tokens\": null,\n"
    "  \"chunk_size_feed_forward\": 0,\n"
    "  \"cross_attention_hidden_size\": null,\n"
    "  \"decoder_start_token_id\": null,\n"
    "  \"diversity_penalty\": 0.0,\n"
    "  \"do_sample\": false,\n"
    "  \"early_stopping\": false,\n"
    "  \"encoder_no_repeat_ngram_size\": 0,\n"
    "  \"exponential_decay_length_penalty\": null,\n"
    "  \"finetuning_task\": null,\n"
    "  \"forced_bos_token_id\": null,\n"
    "  \"forced_eos_token_id\": null,\n"
    "  \"id2label\": {\"0\": \"LABEL_0\", \"1\": \"LABEL_1\"},\n"
    "  \"is_decoder\": false,\n"
    "  \"is_encoder_decoder\": false,\n"
    "  \"label2id\": {\"LABEL_0\": 0, \"LABEL_1\": 1},\n"
    "  \"length_penalty\": 1.0,\n"
    "  \"max_length\": 20,\n"
    "  \"min_length\": 0,\n"
    "  \"no_repeat_ngram_size\": 0,\n"
    "  \"num_beam_groups\": 1,\n"
    "  \"num_beams\": 1,\n"
    "  \"num_return_sequences\": 1,\n"
    "  \"output_attentions\": false,\n"
    "  \"output_hidden_states\": false,\n"
    "  \"output_scores\": false,\n"
    "  \"pad_token_id\": null,\n"
    "  \"prefix\": null,\n"
    "  \"problem_type\": null,\n"
    "  \"pruned_heads\": {},\n"
    "  \"remove_invalid_values\": false,\n"
    "  \"repetition_penalty\": 1.0,\n"
    "  \"return_dict\": true,\n"
    "  \"return_dict_in_generate\": false,\n"
    "  \"sep_token_id\": null,\n"
    "  \"suppress_tokens\": null,\n"
    "  \"task_specific_params\": null,\n"
    "  \"temperature\": 1.0,\n"
    "  \"tf_legacy_loss\": false,\n"
    "  \"tie_encoder_decoder\": false,\n"
    "  \"tokenizer_class\": null,\n"
    "  \"top_k\": 50,\n"
    "  \"top_p\": 1.0,\n"
    "  \"torchscript\": false,\n"
    "  \"typical_p\": 1.0,\n"
    "  \"use_bfloat16\": false\n"
    "}\n";

static const struct {
    const char *name;
    int hidden, inter, heads, layers, kv, vocab;
    bool tied;
} hf_sizes[] = {
    {"Meta-Llama-3-70B", 8192, 28672, 64, 80, 8, 128256, false},
    {"Llama-3.2-1B", 2048, 8192, 32, 16, 8, 128256, true},
    {"Meta-Llama-3-8B", 4096, 14336, 32, 32, 8, 128256, false},
    {"Llama-3.2-3B", 3072, 8192, 24, 28, 8, 128256, true},
    {"Llama-3.1-405B", 16384, 53248, 128, 126, 8, 128256, false},
    {"Llama-2-13b-hf", 5120, 13824, 40, 40, 40, 32000, false},
    {"Llama-2-70b-hf", 8192, 28672, 64, 80, 8, 32000, false},
    {"Llama-2-7b-hf", 4096, 11008, 32, 32, 32, 32000, false},
};
#define HF_VARIANTS (int)(sizeof hf_sizes / sizeof hf_sizes[0])


/* Variant i of the text into buf (its length, or -1 when it does not fit). */
static inline int hf_text(char *buf, size_t cap, int i)
{
    int n = snprintf(buf, cap, hf_template, hf_sizes[i].name, hf_sizes[i].hidden, hf_sizes[i].inter,
                     hf_sizes[i].heads, hf_sizes[i].layers, hf_sizes[i].kv, hf_sizes[i].tied ? "true" : "false",
                     hf_sizes[i].vocab);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

#endif /* LLMMEM_BENCH_HF_TEXT_H */
