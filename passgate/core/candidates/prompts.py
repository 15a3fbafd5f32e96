"""What the model is sent for a task: the manifest's prompt template, rendered, as text or chat messages.

`tasks.prompt_template` may use three placeholders: `{prompt}` (the task's prompt as the task set
defines it), `{task_id}` and `{entry_point}`. Only these exact tokens are replaced; any other brace
is literal text, so templates can hold code with `{}` in it.

The task sets' prompts already follow the benchmarks' own conventions:

* HumanEval: the function signature and docstring; a completion model continues it with the body.
* MBPP: Austin et al.'s sentence ("You are an expert Python programmer, and here is your task: ...
  Your code should pass these tests: ...") with the first test; the model writes the whole function.

The recommended templates below are documented (docs/generation.md); a manifest names its
template explicitly, and the default is `{prompt}`.
"""

from __future__ import annotations

import re

from passgate.core.model import Task

PLACEHOLDERS = ("prompt", "task_id", "entry_point")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")

# Recommended (api, task kind) -> (prompt_template, candidates.postprocess, generation.stop).
# Completion models continue the HumanEval prompt; Codex-paper stop sequences end the body.
HUMANEVAL_STOP = ("\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#")
RECOMMENDED = {
    ("completion", "humaneval"): {
        "prompt_template": "{prompt}",
        "stop": HUMANEVAL_STOP,
        "postprocess": {"style": "body", "stop": list(HUMANEVAL_STOP)},
    },
    ("chat", "humaneval"): {
        "prompt_template": ("Complete the following Python function. Reply with the whole function "
                            "in one ```python code block.\n\n```python\n{prompt}```\n"),
        "stop": (),
        "postprocess": {"extract_fence": True, "style": "full"},
    },
    ("completion", "mbpp"): {
        "prompt_template": "{prompt}\n```python\n",
        "stop": ("```",),
        "postprocess": {"style": "full", "stop": ["```"]},
    },
    ("chat", "mbpp"): {
        "prompt_template": "{prompt}\nReply with the code in one ```python code block.",
        "stop": (),
        "postprocess": {"extract_fence": True, "style": "full"},
    },
}


def render_prompt(template: str, task: Task) -> str:
    """The template with `{prompt}`, `{task_id}` and `{entry_point}` filled in from the task."""
    values = {"prompt": task.prompt, "task_id": task.task_id, "entry_point": task.entry_point}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def chat_messages(system_prompt: str | None, text: str) -> list[dict]:
    """OpenAI chat messages: the optional system prompt, then the rendered prompt as the user turn."""
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    messages.append({"role": "user", "content": text})
    return messages


def repair_message(round_no: int, feedback: str) -> str:
    """The user turn that asks for a repaired answer after the public tests failed."""
    return (f"Your answer failed the examples given in the task (repair round {round_no}):\n\n"
            f"{feedback.strip()}\n\nReply with the corrected, complete function in one ```python code block.")
