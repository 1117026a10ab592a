"""Shared helpers for the family reference data of libllmmem.

Everything here builds models on the meta device (no weights are allocated),
except probe_caches.py which builds tiny float32 models on the CPU.

Versions this was written against: transformers 5.17.0, torch 2.11.0, peft 0.21.2.
"""

import contextlib
import copy
import inspect
import io
import json
import logging
import re
import sys
import warnings

import torch

warnings.filterwarnings("ignore")

import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, CONFIG_MAPPING  # noqa: E402
from transformers.models.auto import modeling_auto  # noqa: E402
from transformers.pytorch_utils import Conv1D  # noqa: E402

transformers.logging.set_verbosity_error()
logging.getLogger("transformers").setLevel(logging.ERROR)

SHARED = "/work/shared/groundtruth/transformers-5.17-families.jsonl"

# The families named by the brief (in addition to every family of the shared file).
BRIEF_FAMILIES = """afmoe apertus arcee aria_text axk1 axk2 bamba bitnet bloom codegen cohere cohere2
cohere2_moe cwm deepseek_v2 deepseek_v3 deepseek_v32 deepseek_v4 diffllama doge ernie4_5 ernie4_5_moe
exaone4 exaone_moe falcon falcon_h1 falcon_mamba flex_olmo gemma gemma2 gemma3 gemma3_text gemma3n_text
gemma4 gemma4_text gemma4_unified gemma4_unified_text glm glm4 glm4_moe glm4_moe_lite glm_moe_dsa gpt-sw3
gpt2 gpt_bigcode gpt_neo gpt_neox gpt_neox_japanese gpt_oss gptj granite granite_swa granitemoe
granitemoe_swa granitemoehybrid granitemoeshared helium hrm_text hy_v3 hy_v4 hyperclovax inkling_text
jais2 jamba jetmoe kimi_linear laguna lfm2 llama llama4 llama4_text longcat_flash mamba mamba2 mellum
mimo_v2_flash minicpm3 minimax minimax_m2 minimax_m3_vl_text ministral3 mistral mixtral mpt nanochat
nemotron_h olmo olmo2 olmo3 olmo_hybrid olmoe opt persimmon phi phi3 phimoe qwen2 qwen2_moe qwen3 qwen3_5
qwen3_5_moe qwen3_5_moe_text qwen3_5_text qwen3_moe qwen3_next recurrent_gemma rwkv seed_oss smollm3
solar_open stablelm starcoder2 vaultgemma xglm xlstm youtu zamba zamba2 zaya""".split()

# in_scope for families that the shared file does not judge (the shared file's
# value wins where it has one).  False = encoder, decoder half of an
# encoder-decoder model, speech/music/vision-first model.
EXTRA_OUT_OF_SCOPE = {"musicgen", "musicgen_melody", "reformer"}

# Config keys that may decide what kind a decoder layer is.  A key is reported
# in layer_pattern.decided_by when it is in the config AND the family's
# modeling source reads it (config.KEY / "KEY").
LAYER_KEY_RE = re.compile(
    r"(layer_types|block_type|pattern|first_k_dense|dense_replace|moe_layer|sparse_step|mlp_only|"
    r"sliding_window_pattern|every_n|attn_layer|expert_layer|layer_offset|layer_period|layer_freq|"
    r"interval|_layers_idx|layer_idx|layers_idx|full_attn|linear_attn|hybrid|block_types|"
    r"moe_layers|dense_layers|num_dense|shared_layer|kv_shar|swa_layers|global_layers|local_layers|"
    r"mamba_layers|attention_layers|layers_block|layer_group|sparse_step|decoder_sparse)",
    re.I,
)


def load_shared():
    header, fams = None, {}
    with open(SHARED) as f:
        for line in f:
            d = json.loads(line)
            if "about" in d:
                header = d
            else:
                fams[d["model_type"]] = d
    return header, fams


def saved_config(config):
    """What save_pretrained writes: to_json_string() (diff against the PretrainedConfig defaults)."""
    return json.loads(config.to_json_string())


def config_from_saved(model_type, saved):
    """Rebuild a config from a saved dict exactly as from_pretrained would (class.from_dict)."""
    cls = CONFIG_MAPPING[model_type]
    d = copy.deepcopy(saved)
    d.pop("transformers_version", None)
    # from_pretrained decodes {"__float__": "Infinity"} (what to_json_string writes for inf/nan)
    d = cls._decode_special_floats(d)
    return cls.from_dict(d)


@contextlib.contextmanager
def quiet():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        yield


def build_meta(config, cls=None):
    with torch.device("meta"):
        if cls is None:
            return AutoModelForCausalLM.from_config(config)
        return cls._from_config(config) if hasattr(cls, "_from_config") else cls(config)


def count_params(model):
    # model.parameters() yields every Parameter once (tied weights once)
    return sum(p.numel() for p in model.parameters())


def is_tied(model):
    try:
        inp = model.get_input_embeddings()
        out = model.get_output_embeddings()
    except Exception:
        return False
    if inp is None or out is None:
        return False
    wi = getattr(inp, "weight", None)
    wo = getattr(out, "weight", None)
    return wi is not None and wo is not None and wi is wo


def find_layer_list(model):
    """The decoder-layer ModuleList: the ModuleList holding the most parameters."""
    best, best_n = None, -1
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) > 0:
            n = sum(p.numel() for p in mod.parameters())
            # prefer the outermost list on ties (a list inside a layer holds fewer)
            if n > best_n:
                best, best_n = name, n
    return best


_NUM = re.compile(r"^\d+$")


def template(name, layers_path):
    """name -> (template, layer index or None).  The decoder-layer index becomes {i};
    any other numeric path component (experts, vision blocks, MTP layers, ...) becomes {j}."""
    layer = None
    if layers_path and name.startswith(layers_path + "."):
        rest = name[len(layers_path) + 1:]
        idx, _, tail = rest.partition(".")
        layer = int(idx)
        parts = tail.split(".") if tail else []
        head = layers_path + ".{i}"
    else:
        parts = name.split(".")
        head = None
    parts = ["{j}" if _NUM.match(p) else p for p in parts]
    t = ".".join(([head] if head else []) + parts)
    return t, layer


def tensor_table(model, layers_path):
    """Every parameter (tied ones once) collapsed by (template, shape).
    n = how many parameters the entry stands for (sum of n*prod(shape) == params)."""
    table = {}
    order = []
    for name, p in model.named_parameters():
        t, layer = template(name, layers_path)
        key = (t, tuple(p.shape))
        e = table.get(key)
        if e is None:
            e = {"name": t, "shape": list(p.shape), "n": 0, "_layers": set()}
            table[key] = e
            order.append(key)
        e["n"] += 1
        if layer is not None:
            e["_layers"].add(layer)
    out = []
    for key in order:
        e = table[key]
        layers = sorted(e.pop("_layers"))
        if layers:
            e["layers"] = layers
        if not (layers and e["n"] == len(layers)) and not (not layers and e["n"] == 1):
            pass  # n already tells the repetition ({j} indices)
        out.append(e)
    return out


def linear_modules(model, layers_path):
    names = []
    seen = set()
    n = 0
    for name, mod in model.named_modules():
        if isinstance(mod, (torch.nn.Linear, Conv1D)):
            n += 1
            t, _ = template(name, layers_path)
            if t not in seen:
                seen.add(t)
                names.append(t)
    return names, n


def peft_all_linear(model, layers_path):
    """Run peft's own 'all-linear' resolution on the model.  peft 0.21 resolves to
    full module names; we report their suffixes and the collapsed full names."""
    from peft import LoraConfig
    from peft.tuners.tuners_utils import _maybe_include_all_linear_layers

    cfg = LoraConfig(target_modules="all-linear")
    cfg = _maybe_include_all_linear_layers(cfg, model)
    full = sorted(cfg.target_modules)
    suffixes = sorted({n.rsplit(".", 1)[-1] for n in full})
    templ = []
    seen = set()
    for n in full:
        t, _ = template(n, layers_path)
        if t not in seen:
            seen.add(t)
            templ.append(t)
    return suffixes, sorted(templ), full


def peft_wrapped(model, layers_path):
    """get_peft_model(model, LoraConfig(target_modules='all-linear')) and list what it wrapped.

    peft 0.21 remaps 'all-linear' for transformers-v5 MoE models (peft.utils.transformers_weight_conversion):
    the v4 expert names become target_parameters on the fused 3-D expert tensors, so what get_peft_model
    wraps can differ from the plain all-linear resolution.  Mutates the model (call last)."""
    from peft import LoraConfig, get_peft_model
    from peft.tuners.lora import LoraLayer

    with torch.device("meta"):  # the LoRA factors too (ParamWrapper builds real Linear(in, r*E) otherwise)
        pm = get_peft_model(model, LoraConfig(target_modules="all-linear", r=8))
    full, templ, seen = [], [], set()
    for name, mod in pm.named_modules():
        if not isinstance(mod, LoraLayer):
            continue
        name = name.replace("base_model.model.", "", 1)
        if type(mod).__name__ == "ParamWrapper":
            # strip the .base_layer hops of nested wrappers
            base = name.replace(".base_layer", "")
            name = base + ":" + mod.parameter_name
        full.append(name)
        t, _ = template(name, layers_path)
        if t not in seen:
            seen.add(t)
            templ.append(t)
    cfg = pm.peft_config["default"]
    tm = cfg.target_modules
    tp = getattr(cfg, "target_parameters", None)
    return {
        "wrapped": sorted(templ),
        "n_wrapped": len(full),
        "target_modules_after_conversion": sorted(tm) if isinstance(tm, (set, list)) and len(tm) < 64 else (
            "<%d full names>" % len(tm) if isinstance(tm, (set, list)) else tm),
        "target_parameters": sorted(tp) if tp else [],
    }, sorted(n for n in full if ":" not in n)


def components(model):
    """Parameter count by top-level part: 'model.X' for the base model's children, else the first name."""
    comp = {}
    for name, p in model.named_parameters():
        parts = name.split(".")
        if parts[0] in ("model", "transformer", "backbone", "rwkv", "gpt_neox", "language_model") and len(parts) > 2:
            key = ".".join(parts[:2])
            if parts[1] in ("language_model", "text_model") and len(parts) > 3 and not _NUM.match(parts[2]):
                key = ".".join(parts[:3])
        else:
            key = parts[0]
        comp[key] = comp.get(key, 0) + p.numel()
    return comp


def _modeling_source(model):
    srcs = []
    seen = set()
    for cls in type(model).__mro__:
        mod = sys.modules.get(cls.__module__)
        if mod is None or not cls.__module__.startswith("transformers.models.") or mod in seen:
            continue
        seen.add(mod)
        try:
            srcs.append(inspect.getsource(mod))
        except Exception:
            pass
    # the text model's module too (composite models import it)
    for _, m in model.named_modules():
        mod = sys.modules.get(type(m).__module__)
        if mod is None or mod in seen or not type(m).__module__.startswith("transformers.models."):
            continue
        seen.add(mod)
        try:
            srcs.append(inspect.getsource(mod))
        except Exception:
            pass
    # the configuration modules too (configs derive layer lists from period/offset keys)
    for name in list(sys.modules):
        if name.startswith("transformers.models.") and ".configuration_" in name:
            mod = sys.modules[name]
            if mod in seen:
                continue
            if any(name.rsplit(".", 1)[0] == m.__name__.rsplit(".", 1)[0] for m in seen):
                seen.add(mod)
                try:
                    srcs.append(inspect.getsource(mod))
                except Exception:
                    pass
    return "\n".join(srcs)


def _flat_config(cfg_dict, prefix=""):
    out = {}
    for k, v in cfg_dict.items():
        if isinstance(v, dict) and k.endswith("_config"):
            out.update(_flat_config(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


_NORM_RE = re.compile(r"norm", re.I)


_FFN_NAMES = ("mlp", "ffn", "feed_forward", "feedforward", "moe", "block_sparse_moe", "experts", "channel_mix",
              "mlp_block", "ff", "sparse_moe", "shared_mlp")
_SKIP_CLASSES = ("Linear", "Embedding", "Dropout", "Identity", "ModuleList", "Parameter")


def _classify(child_classes, layer):
    mixer = []
    ffn = []
    for cname, ccls in child_classes.items():
        low = ccls.lower()
        if _NORM_RE.search(low) or _NORM_RE.search(cname) or "ln" == cname[:2]:
            continue
        if ccls in _SKIP_CLASSES or "act" in cname.lower() or "activation" in low or low.endswith("gelu") or "silu" in low:
            continue
        is_ffn = cname.lower() in _FFN_NAMES or (
            "attention" not in low and "attn" not in low and "mixer" not in cname.lower()
            and any(low.endswith(s) for s in ("mlp", "moe", "moeblock", "sparsemoeblock", "feedforward", "experts", "ffn"))
        )
        (ffn if is_ffn else mixer).append(ccls)
    moe = False
    for n, m in layer.named_modules():
        parts = n.split(".")
        tn = type(m).__name__
        if "experts" in parts or (("Moe" in tn or "MoE" in tn or "SparseMoe" in tn) and "Attention" not in tn and "DecoderLayer" not in tn):
            moe = True
            break
    return ("+".join(mixer) or None), ("+".join(ffn) or None), moe


def layer_pattern(model, config, layers_path):
    if not layers_path:
        return None
    layers = model.get_submodule(layers_path)
    text_cfg = config.get_text_config() if hasattr(config, "get_text_config") else config
    lt = getattr(text_cfg, "layer_types", None)
    runs = []
    for i, layer in enumerate(layers):
        child = {n: type(m).__name__ for n, m in layer.named_children()}
        mixer, ffn, moe = _classify(child, layer)
        kind = {}
        if isinstance(lt, (list, tuple)) and i < len(lt):
            kind["layer_type"] = lt[i]
        for extra in ("layers_block_type", "mlp_layer_types"):
            try:
                v = getattr(text_cfg, extra, None)
            except Exception:
                v = None
            if isinstance(v, (list, tuple)) and i < len(v) and len(v) == len(layers):
                kind[extra] = v[i]
        at = getattr(layer, "attention_type", None) or getattr(layer, "layer_type", None)
        if isinstance(at, str):
            kind["attribute_type"] = at
        kind["mixer"] = mixer
        kind["ffn"] = ffn
        kind["moe"] = moe
        kind["children"] = child
        if runs and runs[-1]["kind"] == kind:
            runs[-1]["layers"].append(i)
        else:
            runs.append({"layers": [i], "kind": kind})
    # merge non-adjacent equal kinds
    merged = []
    for r in runs:
        for m in merged:
            if m["kind"] == r["kind"]:
                m["layers"].extend(r["layers"])
                break
        else:
            merged.append(r)
    src = _modeling_source(model)
    flat = _flat_config(json.loads(config.to_json_string(use_diff=False)))
    decided = []
    for k, v in flat.items():
        base = k.rsplit(".", 1)[-1]
        if base in ("num_hidden_layers", "num_layers", "n_layer", "use_cache", "output_hidden_states", "layer_norm_eps"):
            continue
        if not LAYER_KEY_RE.search(base):
            if not (isinstance(v, (list, str)) and isinstance(v, list) and len(v) == len(layers) and len(layers) > 1):
                continue
        if re.search(r"(config|self)\.%s\b|['\"]%s['\"]" % (re.escape(base), re.escape(base)), src):
            decided.append(k)
    return {"n_layers": len(layers), "kinds": [{"layers": m["layers"], **m["kind"]} for m in merged], "decided_by": sorted(decided)}


def text_only(config):
    """AutoModelForCausalLM built from the composite config's text_config (when it maps to a class)."""
    tc = config.get_text_config()
    if tc is config:
        return None
    try:
        with quiet():
            m = build_meta(tc)
        r = {"model_type": tc.model_type, "class": type(m).__name__, "params": count_params(m), "tied": is_tied(m)}
        del m
        return r
    except Exception as e:
        return {"model_type": getattr(tc, "model_type", None), "error": repr(e)[:300]}


MULTIMODAL_MAPS = [
    "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
    "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES",
]


def full_multimodal(config, causal_cls_name):
    """If the model_type has a ForConditionalGeneration class different from what
    AutoModelForCausalLM built, build it too and report its component counts."""
    mt = config.model_type
    for mapname in MULTIMODAL_MAPS:
        names = getattr(modeling_auto, mapname, {})
        cname = names.get(mt)
        if cname and cname != causal_cls_name:
            cls = getattr(transformers, cname, None)
            if cls is None:
                continue
            try:
                with quiet():
                    with torch.device("meta"):
                        m = cls(config)
                r = {"class": cname, "params": count_params(m), "tied": is_tied(m), "components": components(m)}
                del m
                return r
            except Exception as e:
                return {"class": cname, "error": repr(e)[:300]}
    return None


def describe(model_type, config, *, detail=True, with_peft_check=False, cls=None):
    """Build AutoModelForCausalLM.from_config(config) (or cls) on meta and describe it."""
    with quiet():
        model = build_meta(config, cls)
    rec = {
        "model_type": model_type,
        "class": type(model).__name__,
        "params": count_params(model),
        "tied": is_tied(model),
    }
    if not detail:
        del model
        return rec
    lp = find_layer_list(model)
    rec["layers_path"] = lp
    rec["components"] = components(model)
    rec["tensors"] = tensor_table(model, lp)
    names, nlin = linear_modules(model, lp)
    rec["linear_modules"] = names
    rec["linear_module_count"] = nlin
    suf, templ, full = peft_all_linear(model, lp)
    rec["peft_all_linear"] = suf
    rec["peft_all_linear_modules"] = templ
    rec["layer_pattern"] = layer_pattern(model, config, lp)
    if with_peft_check:
        try:
            with quiet():
                info, wrapped_modules = peft_wrapped(model, lp)
            info["same_as_all_linear"] = wrapped_modules == full and not info["target_parameters"]
            rec["peft_get_peft_model"] = info
        except Exception as e:
            rec["peft_get_peft_model"] = {"error": repr(e)[:400]}
    del model
    return rec
