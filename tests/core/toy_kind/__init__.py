"""A toy task kind, as a new kind is added: this folder, and one line that registers it.

`sums`: a CSV file of `name,a,b`; each line is the task "write `name()`, returning a + b" as a Python
function graded in the Python sandbox. Nothing else in passgate knows it.
"""

from __future__ import annotations

import csv
import io

from passgate.core.errors import ConfigError
from passgate.core.kinds import Kind, Loaded, Source
from passgate.core.model import Task


def load(src: Source) -> Loaded:
    tasks = []
    for line, row in enumerate(csv.reader(io.StringIO(src.text)), 1):
        if len(row) != 3 or not row[0].isidentifier():
            raise ConfigError("expected name,a,b with a Python name", path=str(src.path), line=line, field="name")
        name, a, b = row[0], int(row[1]), int(row[2])
        test = f"assert candidate() == {a + b}\n"
        tasks.append(Task(
            task_id=f"sums/{name}", slice=src.slice or "sums", prompt=f"def {name}():\n    \"\"\"{a} + {b}\"\"\"\n",
            entry_point=name, protected_tests=test, reference_solution=f"def {name}():\n    return {a} + {b}\n",
            classic_suffix=f"\ncandidate = {name}\n{test}", exposure=src.exposure or "holdout"))
    return tasks, []


SUMS = Kind("sums", load, public=False, default_exposure="holdout")
