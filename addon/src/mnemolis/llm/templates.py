"""Chat templates: the GGUF's own Jinja template, else a known fallback per family."""

from __future__ import annotations

import re
from typing import Any

from .catalog import ModelFile

# Gemma's official template, minus the strict role-alternation check: a system
# message is folded into the first user turn (Gemma has no system role).
GEMMA_TEMPLATE = (
    "{{ bos_token }}"
    "{%- if messages and messages[0]['role'] == 'system' -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}"
    "{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}"
    "{%- set first_user_prefix = '' -%}"
    "{%- set loop_messages = messages -%}"
    "{%- endif -%}"
    "{%- if first_user_prefix and (not loop_messages or loop_messages[0]['role'] != 'user') -%}"
    "{{ '<start_of_turn>user\n' + first_user_prefix + '<end_of_turn>\n' }}"
    "{%- set first_user_prefix = '' -%}"
    "{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- set role = 'model' if message['role'] == 'assistant' else 'user' -%}"
    "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else '') }}"
    "{{ message['content'] | trim }}"
    "{{ '<end_of_turn>\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\n' }}{%- endif -%}"
)

# ChatML: what most instruction-tuned GGUFs without a template understand.
CHATML_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\n' }}{%- endif -%}"
)

# A plain transcript for base (pre-trained, not instruction-tuned) models: they
# continue "User: … / Assistant:" text far better than unseen turn markers.
TRANSCRIPT_TEMPLATE = (
    "{{ bos_token }}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'system' -%}{{ message['content'] + '\n\n' }}"
    "{%- elif message['role'] == 'assistant' -%}{{ 'Assistant: ' + message['content'] + '\n' }}"
    "{%- else -%}{{ 'User: ' + message['content'] + '\n' }}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ 'Assistant:' }}{%- endif -%}"
)

_FALLBACK_STOPS = {
    "gemma": ["<end_of_turn>"],
    "chatml": ["<|im_end|>"],
    "transcript": ["\nUser:", "\nAssistant:"],
}
_INSTRUCT = re.compile(r"(?:^|[-_. ])(?:it|instruct|chat|sft|dpo)(?:$|[-_. ])", re.IGNORECASE)


def looks_instruction_tuned(info: ModelFile) -> bool:
    """Guess from names whether a template-less model was tuned for chat."""
    names = [info.name, info.path.name, str(info.metadata.get("general.finetune") or "")]
    return any(_INSTRUCT.search(n) for n in names)


def template_for(info: ModelFile) -> tuple[str, str, list[str]]:
    """(template, where it came from, extra stop strings) for a chat model."""
    if info.chat_template:
        return info.chat_template, "gguf", []
    if not looks_instruction_tuned(info):
        return TRANSCRIPT_TEMPLATE, "fallback:transcript", _FALLBACK_STOPS["transcript"]
    if info.arch.startswith("gemma"):
        return GEMMA_TEMPLATE, "fallback:gemma", _FALLBACK_STOPS["gemma"]
    return CHATML_TEMPLATE, "fallback:chatml", _FALLBACK_STOPS["chatml"]


def build_formatter(info: ModelFile, llama: Any) -> tuple[Any, str, list[str]]:
    """A llama-cpp Jinja formatter for the model, its origin, and extra stops."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template, origin, stops = template_for(info)
    model = llama._model
    eos_id = int(model.token_eos())
    bos_id = int(model.token_bos())
    eos = model.token_get_text(eos_id) if eos_id >= 0 else ""
    bos = model.token_get_text(bos_id) if bos_id >= 0 else ""
    formatter = Jinja2ChatFormatter(
        template=template, eos_token=eos, bos_token=bos, stop_token_ids=None
    )
    return formatter, origin, stops
