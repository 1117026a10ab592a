#!/usr/bin/env python3
"""Turn hub_configs/*.json into preset entries for src/input/presets.c.

usage: python3 mkpresets.py NAME [NAME ...]   (run from anywhere; prints C to stdout)

NAME is a hub_configs file stem listed in PRESETS below.  Each entry is the config
text with the keys that carry no architecture (DROP) removed, serialised on one
line, escaped as a C string and cut into 104-character pieces, preceded by a comment naming
the Hub repo and where the text came from (hub-flagships.jsonl's `source`).
Plain Python 3, no third-party modules.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# hub_configs stem -> (preset name, description)
PRESETS = {
    "GLM-4.5-Air": ("glm-4.5-air", "Zhipu GLM-4.5-Air (106B MoE, 12B active; 128 experts, 1 shared)"),
    "Qwen3-Next-80B-A3B-Instruct": ("qwen3-next-80b-a3b", "Qwen3-Next 80B-A3B (gated DeltaNet + attention 3:1, 512 experts)"),
    "Qwen3.5-27B": ("qwen3.5-27b", "Qwen3.5 27B (gated DeltaNet hybrid, vision tower)"),
    "Qwen3.5-4B": ("qwen3.5-4b", "Qwen3.5 4B (gated DeltaNet hybrid, vision tower, tied)"),
    "DeepSeek-V3.2": ("deepseek-v3.2", "DeepSeek-V3.2 (MLA + sparse-attention indexer, 256 experts)"),
    "DeepSeek-V4-Pro": ("deepseek-v4-pro", "DeepSeek-V4-Pro (compressed sparse attention, 384 experts)"),
    "Kimi-K2-Instruct": ("kimi-k2", "Moonshot Kimi K2 Instruct (1T MoE, 384 experts, DeepSeek-V3 layout)"),
    "Kimi-Linear-48B-A3B-Instruct": ("kimi-linear-48b-a3b", "Moonshot Kimi Linear 48B-A3B (Kimi delta attention + MLA)"),
    "MiniMax-M2.7": ("minimax-m2.7", "MiniMax-M2.7 (230B MoE, MiniMax-M2 architecture)"),
    "gemma-4-31B-it": ("gemma-4-31b-it", "Google Gemma 4 31B (sliding + global attention, vision tower)"),
    "Nemotron-3-Nano-30B-A3B": ("nemotron-3-nano-30b-a3b", "NVIDIA Nemotron 3 Nano 30B-A3B (Mamba-2 + attention + MoE hybrid)"),
    "Mistral-Small-3.2-24B-Instruct-2506": ("mistral-small-3.2-24b", "Mistral Small 3.2 24B (Pixtral vision tower)"),
    "Devstral-2-123B-Instruct": ("devstral-2-123b", "Mistral Devstral 2 123B (dense)"),
    "AI21-Jamba-1.5-Mini": ("jamba-1.5-mini", "AI21 Jamba 1.5 Mini (Mamba + attention 7:1, 16 experts)"),
    "Olmo-3.1-32B-Instruct": ("olmo-3.1-32b", "AllenAI OLMo 3.1 32B Instruct"),
    "Llama-4-Scout-17B-16E-Instruct": ("llama-4-scout-17b-16e", "Meta Llama 4 Scout 17B-16E Instruct (109B MoE, 16 experts top-1 + shared, vision tower)"),
    "ERNIE-4.5-0.3B-PT": ("ernie-4.5-0.3b", "Baidu ERNIE 4.5 0.3B (dense, tied embeddings)"),
}
DROP = {"transformers_version", "auto_map", "_name_or_path", "id2label", "label2id", "tokenizer_class",
        "use_cache", "initializer_range", "output_attentions", "output_hidden_states", "return_dict"}
WIDTH = 104


def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if k not in DROP}
    return o


def pieces(text):
    """Escape the config text for C and cut it into WIDTH-character pieces, never
    between a backslash and the character it escapes."""
    esc = text.replace("\\", "\\\\").replace('"', '\\"')
    out, i = [], 0
    while i < len(esc):
        j = min(i + WIDTH, len(esc))
        k = j
        while k > i and esc[k - 1] == "\\":
            k -= 1
        if (j - k) % 2:  # the piece would end on the first half of an escape pair
            j -= 1
        out.append(esc[i:j])
        i = j
    return out


def sources():
    src = {}
    with open(os.path.join(HERE, "hub-flagships.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if "name" in r:
                src[r["name"]] = (r.get("hub", r["name"]), r.get("source", ""))
    return src


def entry(stem, src):
    pname, desc = PRESETS[stem]
    with open(os.path.join(HERE, "hub_configs", stem + ".json")) as f:
        cfg = clean(json.load(f))
    text = json.dumps(cfg, separators=(", ", ": "))
    hub, where = src.get(stem, (stem, ""))
    lines = ["    /* %s: %s */" % (hub, where[:90].replace("*/", "* /")),
             '    {"%s", "%s",' % (pname, desc)]
    body = pieces(text)
    for n, p in enumerate(body):
        lines.append('     "%s"%s' % (p, "},"if n == len(body) - 1 else ""))
    return "\n".join(lines)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    src = sources()
    for stem in argv:
        print(entry(stem, src))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
