"""Convert a Hugging Face BERT sentence-embedding model to GGUF for llama.cpp.

The models folder takes GGUF files only. Many good small embedding models
(all-MiniLM-L6-v2, bge-small, e5-small) ship as safetensors + ``vocab.txt``;
this writes them as a BERT-architecture GGUF with mean pooling (or what the
sentence-transformers pooling config says), using only the ``gguf`` and
``safetensors`` packages — no torch, no transformers.

    python -m mnemolis.llm.convert_bert MODEL_DIR OUT.gguf [--outtype f16|f32|q8_0]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ConversionError", "convert_bert"]

_SKIPPED = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")
# f32 and f16 keep the weights as trained; q8_0 (8-bit blocks of 32, llama.cpp's own
# format) halves the file and the resident memory again, and its vectors keep a cosine
# of 0.9996 or more with f16's (issue 30).
OUTTYPES = ("f16", "f32", "q8_0")
Q8_BLOCK = 32


class ConversionError(Exception):
    """The folder does not hold a BERT model this converter understands."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConversionError(f"{path}: cannot read ({err.strerror or err})") from err
    except json.JSONDecodeError as err:
        raise ConversionError(f"{path}: not valid JSON ({err.msg})") from err
    if not isinstance(data, dict):
        raise ConversionError(f"{path}: expected a JSON object")
    return data


def _pooling(model_dir: Path) -> int:
    """Pooling from the sentence-transformers config; mean when it says nothing."""
    import gguf

    cfg_path = model_dir / "1_Pooling" / "config.json"
    if not cfg_path.exists():
        return int(gguf.PoolingType.MEAN)
    cfg = _read_json(cfg_path)
    if cfg.get("pooling_mode_cls_token"):
        return int(gguf.PoolingType.CLS)
    return int(gguf.PoolingType.MEAN)


def _vocab(model_dir: Path) -> tuple[list[str], list[int]]:
    """WordPiece tokens in llama.cpp's phantom-space form, with token types."""
    import gguf

    vocab_path = model_dir / "vocab.txt"
    try:
        tokens = vocab_path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ConversionError(f"{vocab_path}: cannot read ({err.strerror or err})") from err
    special: set[str] = set()
    tok_json = model_dir / "tokenizer.json"
    if tok_json.exists():
        for added in _read_json(tok_json).get("added_tokens", []):
            if added.get("special"):
                special.add(str(added.get("content")))
    else:
        special = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    out: list[str] = []
    types: list[int] = []
    for tok in tokens:
        if tok in special:
            out.append(tok)
            types.append(int(gguf.TokenType.CONTROL))
            continue
        if tok.startswith("[") and tok.endswith("]"):
            out.append(tok)
        elif tok.startswith("##"):
            out.append(tok[2:])
        else:
            out.append("\u2581" + tok)
        types.append(int(gguf.TokenType.NORMAL))
    return out, types


def convert_bert(
    model_dir: Path, out_path: Path, *, outtype: str = "f16", name: str | None = None
) -> Path:
    """Write ``out_path`` (atomically) from a BERT model folder; returns the path."""
    import gguf
    from safetensors.numpy import load_file

    model_dir = Path(model_dir)
    config = _read_json(model_dir / "config.json")
    if config.get("model_type") != "bert":
        raise ConversionError(
            f"{model_dir}: model_type is {config.get('model_type')!r}; only 'bert' is supported"
        )
    weights_path = model_dir / "model.safetensors"
    if not weights_path.exists():
        raise ConversionError(f"{weights_path}: missing (only safetensors weights are read)")
    if outtype not in OUTTYPES:
        raise ConversionError(f"outtype {outtype!r}: allowed {', '.join(OUTTYPES)}")
    weights = load_file(str(weights_path))
    n_layers = int(config["num_hidden_layers"])
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layers)
    tokens, toktypes = _vocab(model_dir)
    if len(tokens) != int(config.get("vocab_size", len(tokens))):
        raise ConversionError(
            f"vocab.txt has {len(tokens)} tokens but config.json says {config['vocab_size']}"
        )

    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    arch = gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT]
    writer = gguf.GGUFWriter(str(tmp), arch)
    try:
        writer.add_name(name or Path(out_path).stem)
        writer.add_type("model")
        writer.add_context_length(int(config.get("max_position_embeddings", 512)))
        writer.add_embedding_length(int(config["hidden_size"]))
        writer.add_feed_forward_length(int(config["intermediate_size"]))
        writer.add_block_count(n_layers)
        writer.add_head_count(int(config["num_attention_heads"]))
        writer.add_layer_norm_eps(float(config.get("layer_norm_eps", 1e-12)))
        writer.add_causal_attention(False)
        writer.add_pooling_type(gguf.PoolingType(_pooling(model_dir)))
        writer.add_file_type(
            {
                "f16": gguf.LlamaFileType.MOSTLY_F16,
                "f32": gguf.LlamaFileType.ALL_F32,
                "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
            }[outtype]
        )
        writer.add_token_type_count(int(config.get("type_vocab_size", 1)))
        writer.add_tokenizer_model("bert")
        writer.add_tokenizer_pre("default")
        writer.add_token_list(tokens)
        writer.add_token_types(toktypes)
        gguf.SpecialVocab(model_dir, n_vocab=len(tokens)).add_to_gguf(writer, quiet=True)

        for hf_name, array in weights.items():
            name = hf_name.removeprefix("bert.")
            if name in _SKIPPED:
                continue
            new_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
            if new_name is None:
                raise ConversionError(f"tensor {hf_name!r} has no llama.cpp BERT name")
            data = np.ascontiguousarray(array)
            matrix = data.ndim == 2 and not new_name.startswith("token_types")
            if outtype == "q8_0" and matrix and data.shape[-1] % Q8_BLOCK == 0:
                kind = gguf.GGMLQuantizationType.Q8_0
                packed = gguf.quants.quantize(data.astype(np.float32), kind)
                writer.add_tensor(new_name, packed, raw_dtype=kind)
                continue
            if outtype in ("f16", "q8_0") and matrix:
                data = data.astype(np.float16)
            else:
                data = data.astype(np.float32)
            writer.add_tensor(new_name, data)

        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    tmp.replace(out_path)
    return out_path


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: convert one folder, print where the GGUF went."""
    parser = argparse.ArgumentParser(
        prog="python -m mnemolis.llm.convert_bert",
        description="Convert a BERT sentence-embedding model (safetensors) to GGUF.",
    )
    parser.add_argument("model_dir", type=Path, help="folder with config.json, vocab.txt, …")
    parser.add_argument("out", type=Path, help="GGUF file to write (put it in the models folder)")
    parser.add_argument("--outtype", choices=OUTTYPES, default="f16")
    parser.add_argument("--name", help="model name stored in the file (default: file name)")
    args = parser.parse_args(argv)
    try:
        path = convert_bert(args.model_dir, args.out, outtype=args.outtype, name=args.name)
    except (ConversionError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
